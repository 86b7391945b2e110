import { strict as assert } from "node:assert";
import { OutputWindow, tookEvery } from "./output_window.ts";
import { LineSink } from "./wasi/pipes.ts";

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

Deno.test("a sink without a window never waits", () => {
  const sink = new LineSink(() => {}, 1000, () => {});
  sink.write(new Uint8Array(10_000).fill(10));
  assert.equal(sink.busy, false);
  assert.equal(sink.flush(), undefined);
});
