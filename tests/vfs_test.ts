/**
 * The virtual filesystem (section 5) through real components that use plain
 * `std::fs` (`tests/plugins/fsprobe`): escapes, read-only `/proc`, `/self`
 * rules, `/run`, and live logs.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, TestHost } from "./helpers/host.ts";

const fsprobe = await builtTestPlugin("fsprobe");

type Op = Record<string, unknown>;

const test = hostTests({
  plugins: { fsprobe },
  files: { "hello.txt": "hi", "state/a/b.txt": "deep" },
});

async function run(h: TestHost, ...ops: Op[]): Promise<unknown[]> {
  return await h.result<unknown[]>("fsprobe.run", { ops });
}

/** Starts a process that runs `ops`, answers, runs `after`, then lives until EOF; returns its pid. */
async function live(h: TestHost, ops: Op[] = [], after: Op[] = []): Promise<string> {
  const before = new Set(h.host.table.all().map((p) => p.pid));
  await h.result("core.call", {
    method: "fsprobe.run",
    params: { ops: [...ops, { op: "answer" }, ...after, { op: "wait_eof" }] },
    detach: true,
  });
  return h.host.table.all().find((p) => !before.has(p.pid))!.pid;
}

const denied = { error: "PermissionDenied" };
function errorOf(v: unknown): string | undefined {
  return (v as { error?: string })?.error;
}

test("`..` chains and /.. never leave the world", async (h) => {
  const outside = [
    "/../etc/passwd",
    "/state/../../etc/passwd",
    "/state/a/../../../../etc/hostname",
  ];
  const r = await run(
    h,
    ...outside.map((path) => ({ op: "read", path })),
    { op: "list", path: "/.." },
    { op: "write", path: "/../escaped.txt", text: "x" },
    { op: "read", path: "/state/a/../../hello.txt" },
  );
  for (const v of r.slice(0, -1)) assert.equal(errorOf(v), "PermissionDenied", JSON.stringify(v));
  assert.equal(r.at(-1), "hi", "`..` that stays inside works");
  await assert.rejects(Deno.stat(`${h.root}/../escaped.txt`));
});

test("symlinks that point outside fail; symlinks inside work", async (h) => {
  await Deno.symlink("/etc/passwd", `${h.root}/abs`);
  await Deno.symlink("../../../../../../etc/passwd", `${h.root}/state/rel`);
  await Deno.symlink("../hello.txt", `${h.root}/state/inside`);
  await Deno.symlink("/tmp", `${h.root}/absdir`);
  const r = await run(
    h,
    { op: "read", path: "/abs" },
    { op: "read", path: "/state/rel" },
    { op: "read", path: "/state/inside" },
    { op: "list", path: "/absdir" },
    { op: "write", path: "/absdir/planted", text: "x" },
    { op: "symlink", target: "/etc/passwd", path: "/made-by-guest" },
    { op: "lstat", path: "/abs" },
  );
  assert.deepEqual([errorOf(r[0]), errorOf(r[1])], ["PermissionDenied", "PermissionDenied"]);
  assert.equal(r[2], "hi");
  assert.equal(errorOf(r[3]), "PermissionDenied");
  assert.equal(errorOf(r[4]), "PermissionDenied");
  assert.equal(errorOf(r[5]), "PermissionDenied");
  assert.equal((r[6] as { symlink: boolean }).symlink, true, "lstat sees the link itself");
  await assert.rejects(Deno.stat("/tmp/planted"));
});

test("a symlink swapped between check and open never reaches outside", async (h) => {
  await Deno.writeTextFile(`${h.root}/inside.txt`, "inside");
  const secret = await Deno.makeTempFile();
  await Deno.writeTextFile(secret, "SECRET");
  const link = `${h.root}/flip`;
  await Deno.symlink("inside.txt", link);
  let flipping = true;
  const flipper = (async () => {
    let outside = false;
    while (flipping) {
      outside = !outside;
      await Deno.remove(link);
      await Deno.symlink(outside ? secret : "inside.txt", link);
      await new Promise((r) => setTimeout(r, 0));
    }
  })();
  // Rounds of 400 reads until one read the inside file: at load 15-20 the flipper (this thread)
  // was once held up for all of a round's reads, while the link pointed outside or was gone.
  const seen: string[] = [];
  for (let round = 0; round < 20 && !seen.includes("inside"); round++) {
    seen.push(...(await run(h, { op: "read_many", path: "/flip", count: 400 }))[0] as string[]);
  }
  flipping = false;
  await flipper;
  assert.ok(!seen.includes("SECRET"), `read outside the world: ${seen}`);
  assert.ok(seen.includes("inside"), `never read the inside file: ${seen}`);
});

test("every write to /proc fails", async (h) => {
  const pid = await live(h);
  const r = await run(
    h,
    { op: "write", path: "/proc/new", text: "x" },
    { op: "write", path: `/proc/${pid}/info.json`, text: "x" },
    { op: "write", path: `/proc/${pid}/mine`, text: "x" },
    { op: "mkdir", path: "/proc/core/d" },
    { op: "remove", path: "/proc/core/locks.json" },
    { op: "append", path: "/proc/core/graph.json", text: "x" },
  );
  for (const v of r) assert.equal(errorOf(v), "ReadOnlyFilesystem", JSON.stringify(v));
});

test("info.json, log and fs in /self belong to the core", async (h) => {
  const r = await run(
    h,
    { op: "write", path: "/self/info.json", text: "x" },
    { op: "write", path: "/self/log", text: "x" },
    { op: "mkdir", path: "/self/fs" },
    { op: "write", path: "/self/fs", text: "x" },
    { op: "remove", path: "/self/log" },
    { op: "write", path: "/self/ok", text: "fine" },
    { op: "read", path: "/self/ok" },
    { op: "list", path: "/self" },
  );
  for (const v of r.slice(0, 5)) assert.deepEqual({ error: errorOf(v) }, denied, JSON.stringify(v));
  assert.equal(r[6], "fine");
  assert.deepEqual(r[7], ["info.json", "log", "ok"]);
});

test("a process's files are in /proc/<pid>/ while it runs and vanish when it ends", async (h) => {
  const pid = await live(h, [{ op: "write", path: "/self/note", text: "from A" }, {
    op: "mkdir",
    path: "/self/d",
  }]);
  const r = await run(
    h,
    { op: "read", path: `/proc/${pid}/note` },
    { op: "list", path: `/proc/${pid}` },
    { op: "read", path: `/proc/${pid}/info.json` },
    { op: "list", path: "/proc" },
  );
  assert.equal(r[0], "from A");
  assert.deepEqual(r[1], ["d", "info.json", "log", "note"]);
  const info = JSON.parse(r[2] as string);
  assert.equal(info.pid, pid);
  assert.equal(info.plugin, "fsprobe");
  assert.equal(info.method, "run");
  assert.equal(info.detached, true);
  assert.ok((r[3] as string[]).includes(pid));
  await h.result("core.stop", { pid });
  const after = await run(h, { op: "read", path: `/proc/${pid}/note` }, {
    op: "list",
    path: "/proc",
  });
  assert.equal(errorOf(after[0]), "NotFound");
  assert.ok(!(after[1] as string[]).includes(pid));
});

test("a process reads its own /self/info.json and the contract at /proc/core/PROTOCOL.md", async (h) => {
  const r = await run(h, { op: "read", path: "/self/info.json" }, {
    op: "read",
    path: "/proc/core/PROTOCOL.md",
  }, {
    op: "list",
    path: "/proc/core",
  });
  const info = JSON.parse(r[0] as string);
  assert.equal(info.plugin, "fsprobe");
  assert.equal(info.state, "running");
  assert.equal(r[1], await Deno.readTextFile(new URL("../PROTOCOL.md", import.meta.url)));
  assert.deepEqual(r[2], [
    "PROTOCOL.md",
    "failing.json",
    "graph.dot",
    "graph.json",
    "journal.json",
    "locks.json",
    "plugins",
    "sausage.d.ts",
  ]);
});

test("/run is shared between processes and never on disk", async (h) => {
  await run(h, { op: "mkdir", path: "/run/shared" }, {
    op: "write",
    path: "/run/shared/token",
    text: "RUN-ONLY-TOKEN",
  });
  const r = await run(h, { op: "read", path: "/run/shared/token" }, { op: "list", path: "/run" });
  assert.equal(r[0], "RUN-ONLY-TOKEN");
  assert.deepEqual(r[1], ["shared"]);
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const p = `${dir}/${e.name}`;
      if (p.includes("/state/core/journal.sqlite")) continue; // the journal records the call's params, by design
      if (e.isDirectory) await walk(p);
      else if (
        e.isFile && (await Deno.readTextFile(p).catch(() => "")).includes("RUN-ONLY-TOKEN")
      ) found.push(p);
    }
  };
  await walk(h.root);
  assert.deepEqual(found, []);
});

test("/proc/<pid>/log is live: a read sees every line written so far", async (h) => {
  const pid = await live(h, [{ op: "eprint", text: "first line" }], [{ op: "sleep", ms: 400 }, {
    op: "eprint",
    text: "second line",
  }]);
  const early = (await run(h, { op: "read", path: `/proc/${pid}/log` }))[0] as string;
  assert.match(early, /^first line$/m);
  assert.doesNotMatch(early, /^second line$/m);
  await eventually(
    async () =>
      /^second line$/m.test((await run(h, { op: "read", path: `/proc/${pid}/log` }))[0] as string),
    "the second line",
  );
});

test("std::fs works unchanged on every mount: seek, truncate, rename, stat, mtime", async (h) => {
  const pid = await live(h);
  for (const base of ["/state", "/self", "/run"]) {
    const r = await h.result<unknown[]>("fsprobe.run", {
      ops: [
        { op: "mkdir_all", path: `${base}/t/u` },
        { op: "write", path: `${base}/t/f`, text: "0123456789" },
        { op: "seek_write", path: `${base}/t/f`, offset: 2, text: "AB" },
        { op: "seek_read", path: `${base}/t/f`, offset: 1, len: 4 },
        { op: "truncate", path: `${base}/t/f`, len: 3 },
        { op: "read", path: `${base}/t/f` },
        { op: "rename", from: `${base}/t/f`, to: `${base}/t/u/g` },
        { op: "list", path: `${base}/t/u` },
        { op: "set_mtime", path: `${base}/t/u/g`, ms: 1_700_000_000_000 },
        { op: "stat", path: `${base}/t/u/g` },
        { op: "create_new", path: `${base}/t/u/g`, text: "x" },
        { op: "append", path: `${base}/t/u/g`, text: "++" },
        { op: "read", path: `${base}/t/u/g` },
        { op: "remove", path: `${base}/t/u/g` },
        { op: "rmdir", path: `${base}/t/u` },
        { op: "list", path: `${base}/t` },
      ],
    });
    assert.equal(r[3], "1AB4", base);
    assert.equal(r[5], "01A", base);
    assert.deepEqual(r[7], ["g"], base);
    assert.deepEqual(r[9], {
      len: 3,
      dir: false,
      file: true,
      symlink: false,
      mtime: 1_700_000_000_000,
    }, base);
    assert.equal(errorOf(r[10]), "AlreadyExists", base);
    assert.equal(r[12], "01A++", base);
    assert.deepEqual(r[15], [], base);
  }
  assert.ok(pid);
});
