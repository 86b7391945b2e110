/**
 * The wasi-testsuite cases that found bugs in our WASI host (issue 18),
 * replayed through a real component (`tests/plugins/fsprobe`, its `raw` op
 * makes the preview-1 calls the way the suite's cases do) on every writable
 * mount: the world on disk, `/run` and `/self`. No download of the suite
 * is needed; `deno task wasi-testsuite` runs the suite itself.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { hostTests, type TestHost } from "./helpers/host.ts";

const fsprobe = await builtTestPlugin("fsprobe");

const test = hostTests({ plugins: { fsprobe } });

/** Preview-1 errno numbers. */
const ERRNO: Record<number, string> = {
  2: "ACCES",
  20: "EXIST",
  28: "INVAL",
  31: "ISDIR",
  32: "LOOP",
  44: "NOENT",
  54: "NOTDIR",
  63: "PERM",
  76: "NOTCAPABLE",
};
const OFLAGS_CREAT = 1;
const OFLAGS_DIRECTORY = 2;
const LOOKUP_FOLLOW = 1;

type Raw = Record<string, unknown>;

/**
 * Runs raw calls in one process, each on the preopen `dir`, after making
 * its folder `t` (a process's `/self` starts empty); errors come back as
 * errno names.
 */
async function raw(h: TestHost, dir: string, ...calls: Raw[]): Promise<unknown[]> {
  const ops = [
    { op: "mkdir_all", path: `${dir === "/" ? "" : dir}/t` },
    ...calls.map((c) => ({ op: "raw", dir, ...c })),
  ];
  const out = (await h.result<unknown[]>("fsprobe.run", { ops })).slice(1);
  return out.map((r) => {
    const errno = (r as { errno?: number })?.errno;
    return errno === undefined ? r : ERRNO[errno] ?? `errno ${errno}`;
  });
}

/** The preopens a guest may write: the world on disk, `/run`, `/self`. */
const MOUNTS = ["/", "/run", "/self"];

/**
 * Runs `body` once per writable mount, with a `call` that runs raw calls
 * in one process (so `/self` lasts for all of them) and the folder `t`.
 */
async function everyMount(
  h: TestHost,
  body: (call: (...calls: Raw[]) => Promise<unknown[]>, base: string) => Promise<void>,
): Promise<void> {
  for (const dir of MOUNTS) {
    await body((...calls) => raw(h, dir, ...calls), "t").catch((e) => {
      throw new Error(`on ${dir}: ${e instanceof Error ? e.message : e}`);
    });
  }
}

// dangling_fd, path_open_create_existing, stdio, …: path_open with CREAT and no rights.
test("creating a file without asking for write access works on every mount", async (h) => {
  await everyMount(h, async (call, base) => {
    const r = await call(
      { call: "open", path: `${base}/new`, oflags: OFLAGS_CREAT, rights: 0 },
      { call: "stat", path: `${base}/new` },
    );
    assert.equal(r[0], "ok");
    assert.equal((r[1] as { type: number }).type, 4, "a regular file");
  });
  assert.equal(await Deno.readTextFile(`${h.root}/t/new`), "");
});

// symlink_create, readlink, symlink_filestat, nofollow_errors, path_exists, dangling_symlink.
test("guests make symlinks inside the world; nofollow opens are loop", async (h) => {
  await Deno.mkdir(`${h.root}/t`);
  await Deno.writeTextFile(`${h.root}/t/file`, "data");
  await everyMount(h, async (call, base) => {
    const r = await call(
      { call: "open", path: `${base}/file`, oflags: OFLAGS_CREAT },
      { call: "symlink", target: "file", path: `${base}/link` },
      { call: "symlink", target: "nowhere", path: `${base}/dangling` },
      { call: "stat", path: `${base}/link` },
      { call: "stat", path: `${base}/link`, lookup: LOOKUP_FOLLOW },
      { call: "open", path: `${base}/link`, oflags: 0 },
      { call: "open", path: `${base}/link`, oflags: 0, lookup: LOOKUP_FOLLOW },
      { call: "open", path: `${base}/link`, oflags: OFLAGS_DIRECTORY, lookup: LOOKUP_FOLLOW },
      { call: "stat", path: `${base}/dangling`, lookup: LOOKUP_FOLLOW },
      { call: "symlink", target: "/etc/passwd", path: `${base}/abs` },
      { call: "symlink", target: "../../../etc/passwd", path: `${base}/up` },
      { call: "unlink", path: `${base}/link` },
      { call: "unlink", path: `${base}/dangling` },
    );
    assert.deepEqual(r.slice(0, 3), ["ok", "ok", "ok"]);
    assert.equal((r[3] as { type: number }).type, 7, "lstat sees a symlink");
    assert.equal((r[4] as { type: number }).type, 4, "stat follows it to the file");
    assert.deepEqual(r.slice(5, 9), ["LOOP", "ok", "NOTDIR", "NOENT"]);
    assert.deepEqual(r.slice(9, 11), ["PERM", "PERM"], "links that leave are refused");
    assert.deepEqual(r.slice(11), ["ok", "ok"]);
  });
  assert.equal(await Deno.readTextFile(`${h.root}/t/file`), "data");
  await assert.rejects(Deno.lstat(`${h.root}/t/abs`));
});

// fd_filestat_set, path_filestat, symlink_filestat: times to the nanosecond, on links too.
test("times set to the nanosecond read back so, on files and on links", async (h) => {
  await everyMount(h, async (call, base) => {
    const ns = "1700000000126999900";
    const r = await call(
      { call: "open", path: `${base}/timed`, oflags: OFLAGS_CREAT },
      { call: "symlink", target: "timed", path: `${base}/tl` },
      { call: "stat", path: `${base}/timed` },
      { call: "set_mtime", path: `${base}/timed`, ns, lookup: LOOKUP_FOLLOW },
      { call: "stat", path: `${base}/timed` },
      { call: "set_mtime", path: `${base}/tl`, ns: "1600000000000000200" },
      { call: "stat", path: `${base}/tl` },
      { call: "stat", path: `${base}/timed` },
    );
    const before = r[2] as { atim: string };
    const after = r[4] as { atim: string; mtim: string };
    assert.equal(after.mtim, ns);
    assert.equal(after.atim, before.atim, "an unchanged time stays");
    assert.equal((r[6] as { mtim: string }).mtim, "1600000000000000200", "the link's own time");
    assert.equal((r[7] as { mtim: string }).mtim, ns, "the file's time is left alone");
  });
});

// path_link: link-at was "unsupported".
test("hard links: two names of one file; folders and taken names refused", async (h) => {
  await everyMount(h, async (call, base) => {
    const r = await call(
      { call: "open", path: `${base}/orig`, oflags: OFLAGS_CREAT },
      { call: "link", path: `${base}/orig`, to: `${base}/second` },
      { call: "stat", path: `${base}/orig` },
      { call: "stat", path: `${base}/second` },
      { call: "link", path: `${base}/orig`, to: `${base}/second` },
      { call: "link", path: base, to: `${base}/dirlink` },
      { call: "link", path: `${base}/orig`, to: `${base}/slash/` },
      { call: "unlink", path: `${base}/orig` },
      { call: "stat", path: `${base}/second` },
    );
    assert.equal(r[1], "ok");
    const [a, b] = [r[2] as { ino: string; nlink: number }, r[3] as { ino: string }];
    assert.equal(a.ino, b.ino);
    assert.equal(a.nlink, 2);
    assert.deepEqual(r.slice(4, 8), ["EXIST", "PERM", "NOENT", "ok"]);
    assert.equal((r[8] as { nlink: number }).nlink, 1);
  });
});

// interesting_paths, unlink_file_trailing_slashes, path_symlink_trailing_slashes.
test("a trailing slash names a folder; paths may not climb above their descriptor", async (h) => {
  await everyMount(h, async (call, base) => {
    const r = await call(
      { call: "open", path: `${base}/f`, oflags: OFLAGS_CREAT },
      { call: "open", path: `${base}/f/`, oflags: 0 },
      { call: "open", path: `${base}/f///`, oflags: 0 },
      { call: "open", path: `${base}/`, oflags: 0 },
      { call: "unlink", path: `${base}/f/` },
      { call: "unlink", path: `${base}/` },
      { call: "symlink", target: "x", path: `${base}/nothing/` },
      { call: "symlink", target: "x", path: `${base}/f/` },
      { call: "symlink", target: "x", path: `${base}/` },
      { call: "open", path: `${base}/../..`, oflags: 0 },
    );
    assert.deepEqual(r, [
      "ok",
      "NOTDIR",
      "NOTDIR",
      "ok",
      "NOTDIR",
      "ISDIR",
      "NOENT",
      "NOTDIR",
      "EXIST",
      "PERM",
    ]);
  });
});
