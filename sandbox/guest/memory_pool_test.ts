import { strict as assert } from "node:assert";
import { MemoryPool } from "./memory_pool.ts";

const PAGE = 65536;

Deno.test("a memory given back is zeroed before the next process takes it", () => {
  const pool = new MemoryPool(8 * PAGE);
  const first = pool.take({ initial: 2 });
  new Uint8Array(first.buffer).fill(0xab);
  pool.give(first, { initial: 2 });
  const second = pool.take({ initial: 1 });
  assert.equal(second, first, "the kept memory is reused");
  assert.ok(new Uint8Array(second.buffer).every((b) => b === 0), "and holds nothing of the last");
});

Deno.test("the pool keeps no more than its bound, and too small a memory is not handed out", () => {
  const pool = new MemoryPool(3 * PAGE);
  const a = pool.take({ initial: 2 }), b = pool.take({ initial: 2 });
  pool.give(a, { initial: 2 });
  pool.give(b, { initial: 2 }); // 4 pages would pass the bound of 3
  assert.deepEqual(pool.size, { memories: 1, bytes: 2 * PAGE });
  const big = pool.take({ initial: 3 });
  assert.notEqual(big, a, "a 2-page memory does not serve a 3-page module");
  assert.equal(big.buffer.byteLength, 3 * PAGE);
  assert.equal(pool.take({ initial: 2 }), a);
  assert.deepEqual(pool.size, { memories: 0, bytes: 0 });
});

Deno.test("memories with a maximum, or a pool of 0, are never kept", () => {
  const pool = new MemoryPool(16 * PAGE);
  const capped = pool.take({ initial: 1, maximum: 2 });
  pool.give(capped, { initial: 1, maximum: 2 });
  assert.equal(pool.size.memories, 0);
  const none = new MemoryPool(0);
  none.give(none.take({ initial: 1 }), { initial: 1 });
  assert.equal(none.size.memories, 0);
});
