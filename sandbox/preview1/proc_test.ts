import { strict as assert } from "node:assert";
import { entryOf, IMPORTS, start, withNeighbour } from "./_test_guest.ts";
import { RANDOM_CHUNK } from "./proc.ts";

Deno.test("random_get of 128 MiB fills all of it, a chunk a turn: the neighbour keeps its ticks", async () => {
  const size = 128 * 2 ** 20;
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") ${size / 65536 + 1})
    (func (export "_start")
      (local $e i32)
      (local.set $e (call $random_get (i32.const 65536) (i32.const ${size})))
      (if (local.get $e) (then (call $proc_exit (local.get $e))))
      ;; The first and last 8 bytes are filled (all zero: 2^-64).
      (if (i64.eqz (i64.load (i32.const 65536))) (then (call $proc_exit (i32.const 101))))
      (if (i64.eqz (i64.load (i32.const ${
    65536 + size - 8
  }))) (then (call $proc_exit (i32.const 102))))
      (call $proc_exit (i32.const 0))))`);
  const { value: ended, worstGap, turns } = await withNeighbour(async () =>
    (await start(dir)).ended
  );
  assert.deepEqual(ended, { status: 0 });
  // A turn of the event loop between chunks: the others ran 128 times in the middle of the call.
  assert.ok(turns >= size / RANDOM_CHUNK, `${turns} turns`);
  assert.ok(worstGap < 3000, `the neighbour waited ${worstGap} ms`);
});

Deno.test("random_get past the end of memory traps (it is not clamped)", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (call $proc_exit (call $random_get (i32.const 65000) (i32.const 1000)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer: 1000 bytes at 65000/);
});
