/**
 * One conformance suite for every mount: the operations mounts share, with
 * the results a POSIX program expects. `mountConformance` registers the
 * tests for one implementation; read-only mounts run the read subset and
 * check that every write fails.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { FsError, type Instant, type Mount, type OpenOptions, READ_ONLY } from "./mount.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const WRITE: OpenOptions = { ...READ_ONLY, write: true, create: true };

/** A mount made for one test, with its cleanup. */
export interface Fixture {
  mount: Mount;
  /** A readable file that exists (read-only mounts). */
  existingFile?: string;
  cleanup(): Promise<void> | void;
}

/** An instant at a whole millisecond. */
function at(ms: number): Instant {
  return { ms, ns: 0 };
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
  const h = (await m.open(path, READ_ONLY))!;
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
    assert.equal(await m.open("", READ_ONLY), null);
  });

  t("a missing path is no-entry", async (m) => {
    assert.equal(await code(() => m.stat("no-such-file", true)), "no-entry");
    assert.equal(await code(() => m.open("no-such-file", READ_ONLY)), "no-entry");
  });

  if (!writable) {
    t("every write fails with read-only and reads work", async (m, f) => {
      const file = f.existingFile!;
      assert.ok((await readAll(m, file)).length > 0);
      assert.equal((await m.stat(file, true)).type, "regular-file");
      assert.equal(await code(() => m.open("new", WRITE)), "read-only");
      assert.equal(await code(() => m.open(file, { ...READ_ONLY, write: true })), "read-only");
      assert.equal(await code(() => m.open(file, { ...READ_ONLY, truncate: true })), "read-only");
      assert.equal(await code(() => m.mkdir("d")), "read-only");
      assert.equal(await code(() => m.unlink(file)), "read-only");
      assert.equal(await code(() => m.rename(file, "x")), "read-only");
      assert.equal(await code(() => m.setTimes(file, at(0), at(0), true)), "read-only");
      assert.equal(await code(() => m.symlink(file, "l")), "read-only");
      assert.equal(await code(() => m.link(file, "h", false)), "read-only");
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
    const h = (await m.open("b", READ_ONLY))!;
    assert.equal(dec.decode(await h.read(4, 2)), "2ab5");
    assert.equal((await h.read(10, 100)).length, 0, "reading past the end gives nothing");
    h.close();
  });

  t("truncate shrinks and extends with zeros", async (m) => {
    await writeFile(m, "c", "abcdef");
    const h = (await m.open("c", { ...READ_ONLY, write: true }))!;
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
    await m.setTimes("m", at(1_000_000), at(2_000_000), true);
    assert.equal((await m.stat("m", true)).mtime, 2_000_000);
    await writeFile(m, "m", "y");
    assert.ok((await m.stat("m", true)).mtime! > 2_000_000);
  });

  // wasi-testsuite fd_filestat_set, path_filestat: a time set to the nanosecond reads back so.
  t("times keep their nanoseconds; an unchanged time stays as it was", async (m) => {
    await writeFile(m, "ns", "x");
    const before = await m.stat("ns", true);
    await m.setTimes("ns", null, { ms: 1_700_000_000_126, ns: 999_900 }, true);
    const s = await m.stat("ns", true);
    assert.equal(s.mtime, 1_700_000_000_126);
    assert.equal(s.mtimeNs ?? 0, 999_900);
    assert.equal(s.atime, before.atime);
    assert.equal(s.atimeNs ?? 0, before.atimeNs ?? 0);
    const h = (await m.open("ns", READ_ONLY))!;
    assert.equal((await h.stat()).mtimeNs ?? 0, 999_900);
    h.close();
  });

  // wasi-testsuite symlink_create, readlink, symlink_filestat, dangling_symlink.
  t("symlinks: made, read, followed or not, dangling, and removed", async (m) => {
    await m.mkdir("d");
    await writeFile(m, "d/f", "data");
    await m.symlink("f", "d/l");
    await m.symlink("d", "ld");
    await m.symlink("missing", "dangling");
    assert.equal(await m.readlink("d/l"), "f");
    assert.equal((await m.stat("d/l", false)).type, "symbolic-link");
    assert.equal((await m.stat("d/l", true)).type, "regular-file");
    assert.equal(await readAll(m, "d/l"), "data");
    assert.equal(await readAll(m, "ld/l"), "data");
    assert.equal(await code(() => m.stat("dangling", true)), "no-entry");
    assert.equal((await m.stat("dangling", false)).type, "symbolic-link");
    assert.equal(await code(() => m.symlink("f", "d/l")), "exist");
    assert.equal(await code(() => m.readlink("d/f")), "invalid");
    const names = (await m.readDir("")).map((e) => `${e.name}:${e.type}`);
    assert.ok(names.includes("ld:symbolic-link") && names.includes("dangling:symbolic-link"));
    await m.unlink("ld");
    await m.unlink("dangling");
    assert.equal((await m.stat("d", true)).type, "directory", "unlink removes the link only");
  });

  // The security rule: a link that leads out of the mount is neither made nor followed.
  t("symlinks that leave the mount cannot be made", async (m) => {
    await m.mkdir("d");
    assert.equal(await code(() => m.symlink("/etc/passwd", "abs")), "not-permitted");
    assert.equal(await code(() => m.symlink("../../x", "d/up")), "not-permitted");
    await m.symlink("../x", "d/ok");
    assert.equal(await code(() => m.rename("d/ok", "moved")), "not-permitted");
  });

  // wasi-testsuite nofollow_errors: open without symlink-follow on a link is loop.
  t("opening a symlink without following it is loop", async (m) => {
    await writeFile(m, "target", "t");
    await m.symlink("target", "sl");
    assert.equal(await code(() => m.open("sl", { ...READ_ONLY, nofollow: true })), "loop");
    assert.equal(await readAll(m, "sl"), "t");
  });

  // wasi-testsuite path_link.
  t("hard links: one file under two names; folders and existing names refused", async (m) => {
    await writeFile(m, "orig", "one");
    await m.mkdir("sub");
    await m.link("orig", "sub/copy", false);
    await writeFile(m, "sub/copy", "two");
    assert.equal(await readAll(m, "orig"), "two");
    const a = await m.stat("orig", true);
    const b = await m.stat("sub/copy", true);
    assert.equal(a.ino, b.ino);
    assert.equal(a.nlink, 2);
    assert.equal(await code(() => m.link("orig", "sub/copy", false)), "exist");
    assert.equal(await code(() => m.link("sub", "sub2", false)), "not-permitted");
    await m.unlink("orig");
    assert.equal(await readAll(m, "sub/copy"), "two");
    assert.equal((await m.stat("sub/copy", true)).nlink, 1);
    await m.symlink("nowhere", "dl");
    await m.link("dl", "dl2", false);
    assert.equal(await m.readlink("dl2"), "nowhere");
  });

  t("a file inside a file is not-directory", async (m) => {
    await writeFile(m, "plain", "x");
    assert.equal(await code(() => m.open("plain/child", WRITE)), "not-directory");
  });
}
