/**
 * The wasi-testsuite cases that found bugs in our WASI host (issue 18),
 * replayed through a real component (`tests/plugins/fsprobe`, its `raw` op
 * makes the preview-1 calls the way the suite's cases do) on every writable
 * mount: the world on disk, `/run` and `/self`. No download of the suite
 * is needed; `deno task wasi-testsuite` runs the suite itself (72 of 72 on
 * our preview-1 binding; the last one, `sock_shutdown-invalid_fd`, is
 * replayed here with a module of the same kind).
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { hostTests, type TestHost } from "./helpers/host.ts";
import { ComponentCache } from "../core/cache/component_cache.ts";
import { Host } from "../core/host.ts";
import { defaultLimits } from "../core/world/limits.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { SandboxPool } from "../core/sandboxes/sandbox_pool.ts";
import type { ExtraPreopen } from "../sandbox/hop/protocol.ts";
import { Writer } from "../wasm/binary.ts";

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

/**
 * A plain preview-1 module, as `c/sock_shutdown-invalid_fd` is: its exit code
 * is `sock_shutdown(3)`'s errno, plus 100 when fd 3 is a preopen and 50 when
 * fd 4 is one.
 */
function preopenProbe(): Uint8Array {
  const section = (id: number, w: Writer) => new Writer().u8(id).u32(w.length).bytes(w.view());
  const types = new Writer().u32(3)
    .u8(0x60).u32(2).u8(0x7f).u8(0x7f).u32(1).u8(0x7f) // (i32, i32) -> i32
    .u8(0x60).u32(1).u8(0x7f).u32(0) // (i32) -> ()
    .u8(0x60).u32(0).u32(0); // () -> ()
  const imports = new Writer().u32(3);
  for (const [name, type] of [["sock_shutdown", 0], ["fd_prestat_get", 0], ["proc_exit", 1]]) {
    imports.name("wasi_snapshot_preview1").name(name as string).u8(0).u32(type as number);
  }
  const isPreopen = (
    fd: number,
    ...worth: number[]
  ) => [0x41, fd, 0x41, 0, 0x10, 1, 0x45, 0x41, ...worth];
  const code = [
    0x41,
    3,
    0x41,
    3,
    0x10,
    0, // sock_shutdown(3, RD | WR)
    ...isPreopen(3, 0xe4, 0),
    0x6c,
    0x6a, // + 100 * (fd_prestat_get(3, 0) == 0)
    ...isPreopen(4, 50),
    0x6c,
    0x6a, // + 50 * (fd_prestat_get(4, 0) == 0)
    0x10,
    2,
    0x0b, // proc_exit
  ];
  const body = new Writer().u32(0).bytes(new Uint8Array(code));
  return new Writer()
    .bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]))
    .bytes(section(1, types).view())
    .bytes(section(2, imports).view())
    .bytes(section(3, new Writer().u32(1).u32(2)).view())
    .bytes(section(5, new Writer().u32(1).u8(0).u32(1)).view())
    .bytes(
      section(7, new Writer().u32(2).name("memory").u8(2).u32(0).name("_start").u8(0).u32(3))
        .view(),
    )
    .bytes(section(10, new Writer().u32(1).u32(body.length).bytes(body.view())).view())
    .view().slice();
}

// sock_shutdown-invalid_fd: the suite's runners preopen only a case's `root` (none there).
Deno.test({
  name: "a command given its folders whole (onlyPreopens) sees those and no others",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "sausage-preopens-" });
    const wasm = `${tmp}/probe.wasm`;
    await Deno.writeFile(wasm, preopenProbe());
    await Deno.mkdir(`${tmp}/world`);
    const limits = defaultLimits();
    const pool = new SandboxPool(
      { world: tmp, cache: tmp, stallMs: limits.stall_ms, maxLine: 2 ** 20 },
      1,
    );
    const host = new Host(`${tmp}/world`, {
      pool,
      journalPath: ":memory:",
      watch: false,
      cacheDir: tmp,
      noPlugins: () => "no plugins here",
      sdkDir: null,
    });
    const client = WorldClient.of(host, "test");
    try {
      const component = await new ComponentCache(`${tmp}/transpiled`, undefined, true, "auto")
        .load(wasm);
      assert.equal(component.engine, "p1");
      const exitCode = async (opts: { preopens?: ExtraPreopen[]; onlyPreopens?: boolean }) => {
        const p = await host.supervisor.spawnCommand({
          name: "probe",
          label: "preopens",
          component,
          args: ["probe.wasm"],
          env: [],
          caller: client.caller,
          ...opts,
        });
        return (await p.ended).status;
      };
      const ENOTSOCK = 57, EBADF = 8;
      assert.equal(await exitCode({}), ENOTSOCK + 100 + 50, "by default `/` and `/proc` are there");
      assert.equal(
        await exitCode({ preopens: [], onlyPreopens: true }),
        EBADF,
        "none: fd 3 closed",
      );
      assert.equal(
        await exitCode({
          preopens: [{ guestPath: "/", hostPath: `${tmp}/world` }],
          onlyPreopens: true,
        }),
        ENOTSOCK + 100,
        "only the given `/`",
      );
    } finally {
      await client.close();
      await host.shutdown(200);
      pool.close();
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
  },
});
