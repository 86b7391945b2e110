import { strict as assert } from "node:assert";
import { LineSink } from "./pipes.ts";
import { InputStream, MAX_READ, OutputStream, WRITE_BUDGET } from "./streams.ts";

Deno.test("a stream write past check-write's budget traps; one within it goes out", () => {
  const lines: string[] = [];
  const out = new OutputStream(new LineSink((l) => lines.push(l), 2 ** 20, () => {}));
  assert.equal(out.checkWrite(), BigInt(WRITE_BUDGET));
  assert.throws(() => out.write(new Uint8Array(WRITE_BUDGET + 1)), /passed the 65536/);
  assert.throws(() => out.writeZeroes(1n << 40n), /passed the 65536/);
  out.write(new TextEncoder().encode("a\n"));
  assert.deepEqual(lines, ["a"]);
});

Deno.test("a stdio write of many lines makes the stream busy until they are out", async () => {
  const lines: string[] = [];
  const out = new OutputStream(new LineSink((l) => lines.push(l), 2 ** 20, () => {}));
  out.write(new Uint8Array(WRITE_BUDGET).fill(10));
  out.flush();
  assert.equal(out.checkWrite(), 0n, "a flush in progress");
  await out.subscribe().block();
  assert.equal(lines.length, WRITE_BUDGET);
  assert.equal(out.checkWrite(), BigInt(WRITE_BUDGET));
});

Deno.test("a read of 2^64-1 bytes asks its source for at most MAX_READ", () => {
  let asked = -1;
  const input = new InputStream({
    read: (max) => (asked = max, new Uint8Array(0)),
    whenReadable: () => undefined,
  });
  input.read(2n ** 64n - 1n);
  assert.equal(asked, MAX_READ);
});

Deno.test("a write while earlier lines wait in a stdio sink traps; check-write says 0 meanwhile", async () => {
  const lines: string[] = [];
  const out = new OutputStream(new LineSink((l) => lines.push(l), 2 ** 20, () => {}));
  out.write(new Uint8Array(1000).fill(10));
  assert.equal(out.checkWrite(), 0n, "a backlog of lines");
  assert.equal(out.subscribe().ready(), false);
  assert.throws(() => out.write(new Uint8Array([10])), /check-write allowed none/);
  await out.subscribe().block();
  assert.equal(lines.length, 1000);
  assert.equal(out.checkWrite(), BigInt(WRITE_BUDGET));
  await out.blockingWriteAndFlush(new Uint8Array(1000).fill(10));
  await out.blockingWriteAndFlush(new Uint8Array([10]));
  assert.equal(lines.length, 2001);
});
