import { strict as assert } from "node:assert";
import { OutputWindow } from "./output_window.ts";
import { tookEvery } from "../hop/terms.ts";
import { LINES_PER_TURN, LineSink } from "../wasi/pipes.ts";

Deno.test("writes wait while a window's worth of lines is in flight, and go on as the core takes them", async () => {
  const window = new OutputWindow(20);
  const lines: string[] = [];
  const sink = new LineSink((l) => lines.push(l), 1000, () => {}, window);
  sink.write(new TextEncoder().encode("123456789\n12345678\n"));
  assert.deepEqual(lines, ["123456789", "12345678"]);
  assert.equal(sink.busy, false, "19 of 20 in flight");
  assert.equal(sink.flush(), undefined);
  sink.write(new TextEncoder().encode("1\n"));
  assert.equal(sink.busy, true, "21 in flight");
  let open = false;
  const wait = Promise.resolve(sink.flush()).then(() => (open = true));
  window.took(1);
  await Promise.resolve();
  assert.equal(open, false, "still full");
  window.took(10);
  await wait;
  assert.equal(sink.busy, false);
  assert.equal(tookEvery(64 * 1024), 16 * 1024);
});

Deno.test("a sink without a window never waits for a write of a few lines", () => {
  const sink = new LineSink(() => {}, 1000, () => {});
  sink.write(new Uint8Array(LINES_PER_TURN).fill(10));
  assert.equal(sink.busy, false);
  assert.equal(sink.flush(), undefined);
});

Deno.test("a write of many lines hands on a batch at once and the rest a batch a turn, in order", async () => {
  const lines: string[] = [];
  const sink = new LineSink((l) => lines.push(l), 1000, () => {});
  const text = Array.from({ length: 10_000 }, (_, i) => `${i}\n`).join("");
  sink.write(new TextEncoder().encode(text));
  assert.equal(lines.length, LINES_PER_TURN);
  assert.equal(sink.busy, true, "lines wait in the sink");
  sink.write(new TextEncoder().encode("last\n"));
  assert.equal(lines.length, LINES_PER_TURN, "a later line waits behind them");
  await new Promise((r) => setImmediate(r));
  assert.ok(lines.length <= 2 * LINES_PER_TURN, "one batch a turn");
  await sink.flush();
  assert.equal(sink.busy, false);
  assert.equal(lines.length, 10_001);
  assert.deepEqual(lines.slice(-2), ["9999", "last"]);
});
