import { strict as assert } from "node:assert";
import { entryOf, IMPORTS, start } from "./_test_guest.ts";
import { ERRNO } from "./errno.ts";
import { OFLAGS, RIGHTS } from "./values.ts";

const MORE_IMPORTS = `
  (import "wasi_snapshot_preview1" "path_create_directory" (func $path_create_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_remove_directory" (func $path_remove_directory (param i32 i32 i32) (result i32)))
`;

/** `path_open` at fd 3 (the world) of the string at 1024 (`len` bytes); the new fd goes to 100. */
const open = (len: number, oflags: number, rights: bigint) =>
  `(call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (i32.const ${len})
    (i32.const ${oflags}) (i64.const ${rights}) (i64.const 0) (i32.const 0) (i32.const 100))`;

/**
 * Runs a guest whose `_start` exits with the value of `body` (an i32
 * expression, an errno or a sum of them), with `text` at address 1024, in
 * the world folder `world`; resolves with its exit status.
 */
async function exitOf(world: string, text: string, body: string): Promise<number> {
  const dir = await entryOf(`(module ${IMPORTS} ${MORE_IMPORTS}
    (memory (export "memory") 1)
    (data (i32.const 1024) ${JSON.stringify(text)})
    (func (export "_start") (call $proc_exit ${body})))`);
  const ended = await (await start(dir, { world })).ended;
  assert.equal(ended.error, undefined, `the guest trapped: ${ended.error}`);
  return ended.status;
}

/** A fresh world folder inside a fresh parent (which the guest must never reach). */
async function worldInParent(): Promise<{ parent: string; world: string }> {
  const parent = await Deno.makeTempDir({ prefix: "p1-parent-" });
  const world = `${parent}/world`;
  await Deno.mkdir(world);
  return { parent, world };
}

Deno.test("path_open of a path that climbs out of the world is EPERM, and creates nothing outside", async () => {
  const { parent, world } = await worldInParent();
  await Deno.writeTextFile(`${parent}/secret`, "not yours");
  const path = "../secret";
  assert.equal(await exitOf(world, path, open(path.length, 0, RIGHTS.fdRead)), ERRNO.perm);
  const made = "../made";
  assert.equal(
    await exitOf(world, made, open(made.length, OFLAGS.creat, RIGHTS.fdWrite)),
    ERRNO.perm,
  );
  await assert.rejects(Deno.stat(`${parent}/made`), Deno.errors.NotFound);
});

Deno.test("O_CREAT|O_EXCL on a file that exists is EEXIST; O_CREAT alone opens it", async () => {
  const { world } = await worldInParent();
  await Deno.writeTextFile(`${world}/f`, "x");
  const status = await exitOf(
    world,
    "f",
    `(i32.add
      (i32.mul (i32.const 100) ${open(1, OFLAGS.creat | OFLAGS.excl, RIGHTS.fdWrite)})
      ${open(1, OFLAGS.creat, RIGHTS.fdWrite)})`,
  );
  assert.equal(status, ERRNO.exist * 100 + ERRNO.success);
  assert.equal(await Deno.readTextFile(`${world}/f`), "x", "neither open truncates");
});

Deno.test("a file's name with a trailing slash is ENOTDIR", async () => {
  const { world } = await worldInParent();
  await Deno.writeTextFile(`${world}/f`, "x");
  assert.equal(await exitOf(world, "f/", open(2, 0, RIGHTS.fdRead)), ERRNO.notdir);
});

Deno.test("write rights on a folder opened without O_DIRECTORY open it as a folder, as wasmtime does", async () => {
  const { world } = await worldInParent();
  await Deno.mkdir(`${world}/d`);
  // "d" at 1024, then "x" at 1025: the folder opened, then a folder made inside it by the new fd.
  const status = await exitOf(
    world,
    "dx",
    `(i32.add
      (i32.mul (i32.const 100) ${open(1, 0, RIGHTS.fdRead | RIGHTS.fdWrite)})
      (call $path_create_directory (i32.load (i32.const 100)) (i32.const 1025) (i32.const 1)))`,
  );
  assert.equal(status, 0);
  assert.ok((await Deno.stat(`${world}/d/x`)).isDirectory, "the fd was the folder d");
});

Deno.test("O_TRUNC with write rights on a folder is EISDIR, not a folder open", async () => {
  const { world } = await worldInParent();
  await Deno.mkdir(`${world}/d`);
  assert.equal(
    await exitOf(world, "d", open(1, OFLAGS.trunc, RIGHTS.fdWrite)),
    ERRNO.isdir,
  );
});

Deno.test("path_remove_directory of a folder with something in it is ENOTEMPTY and removes nothing", async () => {
  const { world } = await worldInParent();
  await Deno.mkdir(`${world}/d`);
  await Deno.writeTextFile(`${world}/d/keep`, "x");
  assert.equal(
    await exitOf(
      world,
      "d",
      `(call $path_remove_directory (i32.const 3) (i32.const 1024) (i32.const 1))`,
    ),
    ERRNO.notempty,
  );
  assert.equal(await Deno.readTextFile(`${world}/d/keep`), "x");
});
