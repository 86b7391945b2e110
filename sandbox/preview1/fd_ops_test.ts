import { strict as assert } from "node:assert";
import { entryOf, IMPORTS, start, withNeighbour } from "./_test_guest.ts";
import { CHUNK, STDIO_LINES } from "./fd_ops.ts";
import { MAX_PATH } from "./memory.ts";

/** Fills [at, end) with "a\n" and writes [at, at+len) to `fd` until done; exits with the largest single write. */
const WRITE_ALL = `
  (func $fill (param $at i32) (param $end i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
      (i32.store (local.get $at) (i32.const 0x0a610a61))
      (local.set $at (i32.add (local.get $at) (i32.const 4)))
      (br $l))))
  (func $writeAll (param $fd i32) (param $at i32) (param $len i32) (result i32)
    (local $n i32) (local $max i32) (local $e i32)
    (block $done (loop $l
      (br_if $done (i32.eqz (local.get $len)))
      (i32.store (i32.const 0) (local.get $at))
      (i32.store (i32.const 4) (local.get $len))
      (local.set $e (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8)))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 1000) (local.get $e)))))
      (local.set $n (i32.load (i32.const 8)))
      (if (i32.eqz (local.get $n)) (then (call $proc_exit (i32.const 999))))
      (if (i32.gt_u (local.get $n) (local.get $max)) (then (local.set $max (local.get $n))))
      (local.set $at (i32.add (local.get $at) (local.get $n)))
      (local.set $len (i32.sub (local.get $len) (local.get $n)))
      (br $l)))
    (local.get $max))
`;

Deno.test("an fd_write whose iovecs name 8 GiB from a 1-page module traps at once", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (i32.store (i32.const 0) (i32.const 64)) (i32.store (i32.const 4) (i32.const 0xFFFFFFF0))
      (i32.store (i32.const 8) (i32.const 64)) (i32.store (i32.const 12) (i32.const 0xFFFFFFF0))
      (call $proc_exit (call $fd_write (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 16)))))`);
  const { value: ended, worstGap } = await withNeighbour(async () => (await start(dir)).ended);
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer: iovec 0 names 4294967280 bytes/);
  assert.ok(worstGap < 3000, `the neighbour waited ${worstGap} ms`);
});

Deno.test("an iovec list that runs past the end of memory traps", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (call $proc_exit (call $fd_write (i32.const 1) (i32.const 0) (i32.const 0x20000000) (i32.const 16)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer/);
});

Deno.test("a 1 MiB write of short lines to stderr moves a few hundred lines a call, all of them in the end", async () => {
  const size = 2 ** 20;
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 17)
    ${WRITE_ALL}
    (func (export "_start")
      (call $fill (i32.const 65536) (i32.const ${65536 + size}))
      (call $proc_exit (call $writeAll (i32.const 2) (i32.const 65536) (i32.const ${size})))))`);
  const run = await start(dir);
  const { value: ended, worstGap } = await withNeighbour(() => run.ended);
  // Each call took at most STDIO_LINES lines (2 bytes each): the guest looped for the rest.
  assert.equal(ended.status, STDIO_LINES * 2);
  assert.equal(run.stderr.length, size / 2);
  assert.ok(run.stderr.every((l) => l === "a"));
  assert.ok(worstGap < 3000, `the neighbour waited ${worstGap} ms`);
});

Deno.test("a 32 MiB file write moves 1 MiB a call (short writes), and the file gets all of it", async () => {
  const size = 32 * 2 ** 20;
  const world = await Deno.makeTempDir();
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") ${size / 65536 + 1})
    (data (i32.const 32) "big")
    ${WRITE_ALL}
    (func (export "_start")
      (local $e i32)
      (call $fill (i32.const 65536) (i32.const ${65536 + size}))
      (local.set $e (call $path_open (i32.const 3) (i32.const 0) (i32.const 32) (i32.const 3)
        (i32.const 9) (i64.const 64) (i64.const 0) (i32.const 0) (i32.const 40)))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 2000) (local.get $e)))))
      (call $proc_exit (call $writeAll (i32.load (i32.const 40)) (i32.const 65536) (i32.const ${size})))))`);
  const run = await start(dir, { world });
  const { value: ended, worstGap } = await withNeighbour(() => run.ended);
  assert.equal(ended.status, CHUNK);
  assert.equal((await Deno.stat(`${world}/big`)).size, size);
  assert.ok(worstGap < 3000, `the neighbour waited ${worstGap} ms`);
});

Deno.test("fd_readdir with cookie 2^64-1 answers an empty buffer, not a JavaScript error", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (local $e i32)
      (i32.store (i32.const 16) (i32.const 77))
      (local.set $e (call $fd_readdir (i32.const 3) (i32.const 1024) (i32.const 256) (i64.const -1) (i32.const 16)))
      (call $proc_exit (i32.add (i32.mul (local.get $e) (i32.const 1000)) (i32.load (i32.const 16))))))`);
  const ended = await (await start(dir)).ended;
  assert.deepEqual(ended, { status: 0 });
});

Deno.test("fd_readdir into a buffer past the end of memory traps", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (call $proc_exit (call $fd_readdir (i32.const 3) (i32.const 65500) (i32.const 256) (i64.const 0) (i32.const 16)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer: 256 bytes at 65500/);
});

Deno.test("path_open with a path past the end of memory traps (it is not read as the root)", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (func (export "_start")
      (call $proc_exit (call $path_open (i32.const 3) (i32.const 0) (i32.const 70000) (i32.const 4)
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 40)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /out-of-bounds pointer: 4 bytes at 70000/);
});

Deno.test("path_open with a path that is not UTF-8 answers EILSEQ", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (data (i32.const 32) "\\ff\\fe")
    (func (export "_start")
      (call $proc_exit (call $path_open (i32.const 3) (i32.const 0) (i32.const 32) (i32.const 2)
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 40)))))`);
  const ended = await (await start(dir)).ended;
  assert.deepEqual(ended, { status: 25 });
});

Deno.test("a misaligned nwritten pointer traps, as in wasmtime", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 1)
    (data (i32.const 64) "hi\\n")
    (func (export "_start")
      (i32.store (i32.const 0) (i32.const 64)) (i32.store (i32.const 4) (i32.const 3))
      (call $proc_exit (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 17)))))`);
  const ended = await (await start(dir)).ended;
  assert.equal(ended.status, 1);
  assert.match(ended.error ?? "", /misaligned pointer: 17/);
});

Deno.test("a path longer than MAX_PATH answers ENAMETOOLONG without being resolved", async () => {
  const dir = await entryOf(`(module ${IMPORTS}
    (memory (export "memory") 3)
    (func (export "_start")
      (memory.fill (i32.const 1024) (i32.const 97) (i32.const ${MAX_PATH + 1}))
      (call $proc_exit (call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (i32.const ${
    MAX_PATH + 1
  })
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 40)))))`);
  const ended = await (await start(dir)).ended;
  assert.deepEqual(ended, { status: 37 });
});

Deno.test("an fd_read into a 4 MiB iovec reads 1 MiB (a short read), and an iovec past memory traps", async () => {
  const world = await Deno.makeTempDir();
  await Deno.writeFile(`${world}/big`, new Uint8Array(4 * 2 ** 20).fill(1));
  const read = (iovLen: number) =>
    entryOf(`(module ${IMPORTS}
    (memory (export "memory") 66)
    (data (i32.const 32) "big")
    (func (export "_start")
      (local $e i32)
      (local.set $e (call $path_open (i32.const 3) (i32.const 0) (i32.const 32) (i32.const 3)
        (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 40)))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 2000) (local.get $e)))))
      (i32.store (i32.const 0) (i32.const 65536)) (i32.store (i32.const 4) (i32.const ${iovLen}))
      (local.set $e (call $fd_read (i32.load (i32.const 40)) (i32.const 0) (i32.const 1) (i32.const 8)))
      (if (local.get $e) (then (call $proc_exit (i32.add (i32.const 1000) (local.get $e)))))
      (call $proc_exit (i32.load (i32.const 8)))))`);
  assert.deepEqual(await (await start(await read(4 * 2 ** 20), { world })).ended, {
    status: CHUNK,
  });
  const past = await (await start(await read(65 * 65536 + 1), { world })).ended;
  assert.equal(past.status, 1);
  assert.match(past.error ?? "", /out-of-bounds pointer: iovec 0/);
});
