import { strict as assert } from "node:assert";
import { GuestFault, GuestMemory, MAX_IOVS, MAX_PATH, MemoryFenced } from "./memory.ts";
import { ERRNO, Errno } from "./errno.ts";

const PAGE = 65536;

/** A one-page guest memory with its view. */
function onePage(): { mem: GuestMemory; wasm: WebAssembly.Memory; v: DataView } {
  const wasm = new WebAssembly.Memory({ initial: 1 });
  const mem = new GuestMemory();
  mem.memory = wasm;
  return { mem, wasm, v: new DataView(wasm.buffer) };
}

/** Writes iovec `i` of the list at `at`: `len` bytes at `ptr`. */
function iovec(v: DataView, at: number, i: number, ptr: number, len: number): void {
  v.setUint32(at + i * 8, ptr, true);
  v.setUint32(at + i * 8 + 4, len, true);
}

Deno.test("a range that ends past the memory traps, one that ends at its last byte does not", () => {
  const { mem } = onePage();
  mem.check(PAGE - 4, 4);
  assert.throws(() => mem.check(PAGE - 3, 4), GuestFault);
  assert.throws(() => mem.u32(PAGE, 1), /out-of-bounds pointer: 4 bytes at 65536/);
  assert.throws(() => mem.u64(PAGE - 4, 1), GuestFault);
});

Deno.test("a misaligned u32 or u64 traps even inside the memory", () => {
  const { mem } = onePage();
  assert.throws(() => mem.u32(2, 1), /misaligned pointer: 2 \(needs 4-byte alignment\)/);
  assert.throws(() => mem.u64(4, 1), /needs 8-byte alignment/);
  mem.u64(8, 2n ** 64n - 1n);
  assert.equal(new DataView(mem.memory!.buffer).getBigUint64(8, true), 2n ** 64n - 1n);
});

Deno.test("after a grow, the bytes past the old end are reachable through the same object", () => {
  const { mem, wasm } = onePage();
  assert.throws(() => mem.u32(PAGE, 7), GuestFault);
  wasm.grow(1);
  mem.u32(PAGE, 7);
  assert.equal(new DataView(wasm.buffer).getUint32(PAGE, true), 7);
  assert.equal(mem.size, 2 * PAGE);
});

Deno.test("a path longer than MAX_PATH is ENAMETOOLONG; bytes that are not UTF-8 are EILSEQ", () => {
  const { mem, wasm } = onePage();
  const bytes = new Uint8Array(wasm.buffer);
  bytes.set([0x66, 0xc3, 0xa9], 0);
  assert.equal(mem.string(0, 3), "fé");
  bytes.set([0xff, 0xfe], 16);
  assert.throws(() => mem.string(16, 2), (e) => e instanceof Errno && e.errno === ERRNO.ilseq);
  assert.ok(MAX_PATH + 1 < PAGE, "the test's path fits in one page");
  assert.throws(
    () => mem.string(0, MAX_PATH + 1),
    (e) => e instanceof Errno && e.errno === ERRNO.nametoolong,
  );
});

Deno.test("an iovec that names bytes past the memory traps before anything is gathered", () => {
  const { mem, v } = onePage();
  iovec(v, 0, 0, 100, 4);
  iovec(v, 0, 1, PAGE - 2, 4);
  assert.throws(() => mem.gather(0, 2, 1000), /iovec 1 names 4 bytes at 65534/);
});

Deno.test("gather takes at most max bytes, in iovec order; scatter spreads and counts what it placed", () => {
  const { mem, v, wasm } = onePage();
  const bytes = new Uint8Array(wasm.buffer);
  bytes.set([1, 2, 3], 100);
  bytes.set([4, 5, 6], 200);
  iovec(v, 0, 0, 100, 3);
  iovec(v, 0, 1, 200, 3);
  assert.deepEqual([...mem.gather(0, 2, 5)], [1, 2, 3, 4, 5]);
  iovec(v, 32, 0, 300, 2);
  iovec(v, 32, 1, 400, 10);
  assert.equal(mem.scatter(32, 2, new Uint8Array([9, 8, 7])), 3);
  assert.deepEqual([...bytes.subarray(300, 302)], [9, 8]);
  assert.deepEqual([...bytes.subarray(400, 402)], [7, 0]);
});

Deno.test("only the first MAX_IOVS iovecs are looked at; the list itself must lie in memory", () => {
  const { mem, v } = onePage();
  for (let i = 0; i <= MAX_IOVS; i++) iovec(v, 0, i, 0, 1);
  // Entry MAX_IOVS (the 1025th) names bytes past the memory: it is never read.
  iovec(v, 0, MAX_IOVS, PAGE, 1);
  assert.deepEqual(mem.iovecs(0, MAX_IOVS + 1, 1e9), { n: MAX_IOVS, total: MAX_IOVS });
  assert.throws(() => mem.iovecs(PAGE - 8, 2, 10), /out-of-bounds pointer: 16 bytes/);
});

Deno.test("after the fence, every access throws MemoryFenced and waiters wake", async () => {
  const { mem } = onePage();
  const woke = mem.whenFenced();
  mem.fence();
  await woke;
  assert.ok(mem.ended);
  assert.throws(() => mem.u32(0, 1), MemoryFenced);
  assert.throws(() => mem.memory, MemoryFenced);
  assert.throws(() => (mem.memory = new WebAssembly.Memory({ initial: 1 })), MemoryFenced);
});
