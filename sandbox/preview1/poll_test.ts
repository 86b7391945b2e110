import { strict as assert } from "node:assert";
import { MemoryPool } from "../guest/memory_pool.ts";
import { entryOf, IMPORTS, start, withNeighbour } from "./_test_guest.ts";
import { MAX_SUBSCRIPTIONS } from "./poll.ts";

const EVENTS = 0x40000;
const NEVENTS = 0x60000;

/** A module that polls `n` subscriptions at 0 (set up by `setup`) and exits with `result`. */
function pollModule(n: number, setup: string, result: string): string {
  return `(module ${IMPORTS}
    (memory (export "memory") 8)
    (func (export "_start")
      (local $i i32) (local $e i32)
      ${setup}
      (local.set $e (call $poll_oneoff (i32.const 0) (i32.const ${EVENTS}) (i32.const ${n}) (i32.const ${NEVENTS})))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 1000) (local.get $e)))))
      (call $proc_exit ${result})))`;
}

/** Sets every subscription [0, n) to a monotonic clock of `ns` nanoseconds. */
function clocks(n: number, ns: bigint): string {
  return `
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (i32.const ${n})))
      (i32.store (i32.add (i32.mul (local.get $i) (i32.const 48)) (i32.const 16)) (i32.const 1))
      (i64.store (i32.add (i32.mul (local.get $i) (i32.const 48)) (i32.const 24)) (i64.const ${ns}))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))`;
}

Deno.test("poll_oneoff past MAX_SUBSCRIPTIONS answers ENOMEM (wasmtime's errno for a call past its copy budget)", async () => {
  const dir = await entryOf(pollModule(MAX_SUBSCRIPTIONS + 1, "", "(i32.const 0)"));
  const ended = await (await start(dir)).ended;
  assert.deepEqual(ended, { status: 1000 + 48 });
});

Deno.test("poll_oneoff over MAX_SUBSCRIPTIONS zeroed clocks reports each of them, at once", async () => {
  const dir = await entryOf(
    pollModule(MAX_SUBSCRIPTIONS, "", `(i32.load (i32.const ${NEVENTS}))`),
  );
  const { value: ended, worstGap } = await withNeighbour(async () => (await start(dir)).ended);
  assert.deepEqual(ended, { status: MAX_SUBSCRIPTIONS });
  assert.ok(worstGap < 3000, `the neighbour waited ${worstGap} ms`);
});

Deno.test("poll_oneoff waits for the earliest of many timers with one timer, and reports only it", async () => {
  const n = MAX_SUBSCRIPTIONS;
  const setup = `${clocks(n, 60_000_000_000n)}
    (i64.store (i32.const ${(n - 1) * 48}) (i64.const 7))
    (i64.store (i32.const ${(n - 1) * 48 + 24}) (i64.const 20000000))`;
  const result = `(i32.add (i32.mul (i32.load (i32.const ${NEVENTS})) (i32.const 100))
    (i32.wrap_i64 (i64.load (i32.const ${EVENTS}))))`;
  const dir = await entryOf(pollModule(n, setup, result));
  const t = performance.now();
  const ended = await (await start(dir)).ended;
  const took = performance.now() - t;
  assert.deepEqual(ended, { status: 107 });
  assert.ok(took >= 20 && took < 5000, `took ${took} ms`);
});

Deno.test("poll_oneoff with its events array past the end of memory traps", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (call $proc_exit (call $poll_oneoff (i32.const 0) (i32.const 65520) (i32.const 1) (i32.const 64)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer: 32 bytes at 65520/);
});

Deno.test("a process killed while its poll_oneoff waits: the next owner of its memory never sees the event", async () => {
  const pool = new MemoryPool(64 * 2 ** 20);
  // The victim polls one 300 ms timer whose event (userdata "MARK") would land at 256.
  const victim = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (data (i32.const 2048) "waiting\\n")
    (func (export "_start")
      (i32.store (i32.const 2064) (i32.const 2048)) (i32.store (i32.const 2068) (i32.const 8))
      (drop (call $fd_write (i32.const 1) (i32.const 2064) (i32.const 1) (i32.const 2072)))
      (i64.store (i32.const 1024) (i64.const 0x4b52414d))
      (i32.store (i32.const 1040) (i32.const 1))
      (i64.store (i32.const 1048) (i64.const 300000000))
      (drop (call $poll_oneoff (i32.const 1024) (i32.const 256) (i32.const 1) (i32.const 512)))
      (call $proc_exit (i32.const 0))))`);
  // The next process marks 256..272, sleeps 600 ms (its own arrays elsewhere), then looks:
  // the victim's late event (read from this memory, so all but zeroes) would overwrite it.
  const next = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (data (i32.const 2048) "waiting\\n")
    (func (export "_start")
      (i32.store (i32.const 2064) (i32.const 2048)) (i32.store (i32.const 2068) (i32.const 8))
      (drop (call $fd_write (i32.const 1) (i32.const 2064) (i32.const 1) (i32.const 2072)))
      (i64.store (i32.const 256) (i64.const -1))
      (i64.store (i32.const 264) (i64.const -1))
      (i32.store (i32.const 4112) (i32.const 1))
      (i64.store (i32.const 4120) (i64.const 600000000))
      (drop (call $poll_oneoff (i32.const 4096) (i32.const 8192) (i32.const 1) (i32.const 8448)))
      (call $proc_exit (i32.add
        (i64.ne (i64.load (i32.const 256)) (i64.const -1))
        (i64.ne (i64.load (i32.const 264)) (i64.const -1))))))`);
  const first = await start(victim, { pool });
  while (first.stdout.length === 0) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20));
  first.control.kill();
  assert.equal((await first.ended).status, 1);
  assert.equal(pool.size.memories, 1, "the victim's memory went back to the pool");
  const second = await start(next, { pool });
  while (second.stdout.length === 0) await new Promise((r) => setTimeout(r, 5));
  assert.equal(pool.size.memories, 0, "the next process took it");
  assert.deepEqual(await second.ended, { status: 0 });
});
