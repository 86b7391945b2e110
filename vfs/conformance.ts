/**
 * One conformance suite for every mount: the operations mounts share, with
 * the results a POSIX program expects. `mountConformance` registers the
 * tests for one implementation; read-only mounts run the read subset and
 * check that every write fails.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { FsError, type Mount, type OpenOptions } from "./mount.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Open flags for reading. */
export const READ: OpenOptions = {
  read: true,
  write: false,
  create: false,
  exclusive: false,
  truncate: false,
  directory: false,
};
const WRITE: OpenOptions = { ...READ, write: true, create: true };

/** A mount made for one test, with its cleanup. */
export interface Fixture {
  mount: Mount;
  /** A readable file that exists (read-only mounts). */
  existingFile?: string;
  cleanup(): Promise<void> | void;
}

async function code(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    assert.ok(e instanceof FsError, `expected an FsError, got ${e}`);
    return e.code;
  }
  return "ok";
}

async function readAll(m: Mount, path: string): Promise<string> {
  const h = (await m.open(path, READ))!;
  const s = dec.decode(await h.read(1 << 20, 0));
  h.close();
  return s;
}

async function writeFile(m: Mount, path: string, text: string, offset = 0): Promise<void> {
  const h = (await m.open(path, WRITE))!;
  await h.write(enc.encode(text), offset);
  h.close();
}

/** Registers the conformance tests of one mount implementation. */
export function mountConformance(
  name: string,
  make: () => Promise<Fixture>,
  writable: boolean,
): void {
  const t = (what: string, fn: (m: Mount, f: Fixture) => Promise<void>) =>
    Deno.test(
      { name: `${name}: ${what}`, sanitizeOps: false, sanitizeResources: false },
      async () => {
        const f = await make();
        try {
          await fn(f.mount, f);
        } finally {
          await f.cleanup();
        }
      },
    );

  t("the root is a folder that can be listed", async (m) => {
    assert.equal((await m.stat("", true)).type, "directory");
    assert.ok(Array.isArray(await m.readDir("")));
    assert.equal(await m.open("", READ), null);
  });

  t("a missing path is no-entry", async (m) => {
    assert.equal(await code(() => m.stat("no-such-file", true)), "no-entry");
    assert.equal(await code(() => m.open("no-such-file", READ)), "no-entry");
  });

  if (!writable) {
    t("every write fails with read-only and reads work", async (m, f) => {
      const file = f.existingFile!;
      assert.ok((await readAll(m, file)).length > 0);
      assert.equal((await m.stat(file, true)).type, "regular-file");
      assert.equal(await code(() => m.open("new", WRITE)), "read-only");
      assert.equal(await code(() => m.open(file, { ...READ, write: true })), "read-only");
      assert.equal(await code(() => m.open(file, { ...READ, truncate: true })), "read-only");
      assert.equal(await code(() => m.mkdir("d")), "read-only");
      assert.equal(await code(() => m.unlink(file)), "read-only");
      assert.equal(await code(() => m.rename(file, "x")), "read-only");
      assert.equal(await code(() => m.setTimes(file, 0, 0, true)), "read-only");
    });
    return;
  }

  t("a file is created, written, read, and stat shows its size", async (m) => {
    await writeFile(m, "a.txt", "hello");
    assert.equal(await readAll(m, "a.txt"), "hello");
    const s = await m.stat("a.txt", true);
    assert.equal(s.type, "regular-file");
    assert.equal(s.size, 5);
  });

  t("writes at an offset and reads at an offset (seek)", async (m) => {
    await writeFile(m, "b", "0123456789");
    await writeFile(m, "b", "ab", 3);
    const h = (await m.open("b", READ))!;
    assert.equal(dec.decode(await h.read(4, 2)), "2ab5");
    assert.equal((await h.read(10, 100)).length, 0, "reading past the end gives nothing");
    h.close();
  });

  t("truncate shrinks and extends with zeros", async (m) => {
    await writeFile(m, "c", "abcdef");
    const h = (await m.open("c", { ...READ, write: true }))!;
    await h.truncate(2);
    assert.equal((await h.stat()).size, 2);
    await h.truncate(4);
    assert.deepEqual([...await h.read(10, 0)], [97, 98, 0, 0]);
    h.close();
    const t = (await m.open("c", { ...WRITE, truncate: true }))!;
    t.close();
    assert.equal((await m.stat("c", true)).size, 0);
  });

  t("exclusive create of an existing file is exist", async (m) => {
    await writeFile(m, "d", "x");
    assert.equal(await code(() => m.open("d", { ...WRITE, exclusive: true })), "exist");
  });

  t("folders: mkdir, listing in order, rmdir, and their errors", async (m) => {
    await m.mkdir("dir");
    assert.equal(await code(() => m.mkdir("dir")), "exist");
    await writeFile(m, "dir/z", "1");
    await writeFile(m, "dir/a", "2");
    await m.mkdir("dir/sub");
    assert.deepEqual((await m.readDir("dir")).map((e) => `${e.name}:${e.type}`), [
      "a:regular-file",
      "sub:directory",
      "z:regular-file",
    ]);
    assert.equal(await code(() => m.rmdir("dir")), "not-empty");
    assert.equal(await code(() => m.unlink("dir")), "is-directory");
    assert.equal(await code(() => m.rmdir("dir/a")), "not-directory");
    assert.equal(await code(() => m.readDir("dir/a")), "not-directory");
    await m.rmdir("dir/sub");
    await m.unlink("dir/a");
    await m.unlink("dir/z");
    await m.rmdir("dir");
    assert.equal(await code(() => m.stat("dir", true)), "no-entry");
  });

  t("rename moves a file, replaces a file, and moves a folder", async (m) => {
    await writeFile(m, "r1", "one");
    await m.rename("r1", "r2");
    assert.equal(await code(() => m.stat("r1", true)), "no-entry");
    assert.equal(await readAll(m, "r2"), "one");
    await writeFile(m, "r3", "three");
    await m.rename("r3", "r2");
    assert.equal(await readAll(m, "r2"), "three");
    await m.mkdir("f1");
    await writeFile(m, "f1/x", "x");
    await m.rename("f1", "f2");
    assert.equal(await readAll(m, "f2/x"), "x");
    assert.equal(await code(() => m.rename("nope", "r4")), "no-entry");
  });

  t("mtime: set explicitly, and moved by a write", async (m) => {
    await writeFile(m, "m", "x");
    await m.setTimes("m", 1_000_000, 2_000_000, true);
    assert.equal((await m.stat("m", true)).mtime, 2_000_000);
    await writeFile(m, "m", "y");
    assert.ok((await m.stat("m", true)).mtime! > 2_000_000);
  });

  t("a file inside a file is not-directory", async (m) => {
    await writeFile(m, "plain", "x");
    assert.equal(await code(() => m.open("plain/child", WRITE)), "not-directory");
  });
}
