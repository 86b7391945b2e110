/**
 * Plugin-served files, pipes for endpoints and subscriptions to file changes
 * (PROTOCOL 5.1, 5.2, 6; issue 27 items 1-3), end to end: the `memfs` plugin
 * (the SDK's `serve_files`, `listen`, `watch`) serves its in-memory files and
 * its own state at `/proc/<pid>/fs/`; `fsprobe` reads and writes them with
 * plain `std::fs`, on both engines. Real hosts, real components.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, TestHost } from "./helpers/host.ts";

const memfs = await builtTestPlugin("memfs");
const fsprobe = await builtTestPlugin("fsprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

type Op = Record<string, unknown>;

/** Runs `fn` on a fresh host with memfs and fsprobe (on `engine`: `jco`, or the default). */
async function withHost(
  fn: (h: TestHost) => Promise<void>,
  files: Record<string, string> = {},
  engine?: string,
): Promise<void> {
  if (engine) Deno.env.set("SAUSAGE_ENGINE", engine);
  const h = await TestHost.start({ plugins: { memfs, fsprobe }, files });
  try {
    await fn(h);
  } finally {
    await h.close();
    if (engine) Deno.env.delete("SAUSAGE_ENGINE");
  }
}

const run = (h: TestHost, ...ops: Op[]) => h.result<unknown[]>("fsprobe.run", { ops });
const errorOf = (v: unknown) => (v as { error?: string })?.error;

/** Starts a memfs server (detached); resolves with its pid. */
const start = (h: TestHost) =>
  h.result<string>("core.call", { method: "memfs.start", params: {}, detach: true });

for (const engine of [undefined, "jco"]) {
  Deno.test({
    name:
      `served files (${engine ?? "preview 1"}): another process lists, stats, reads and writes ` +
      `/proc/<pid>/fs/, and status.json is the server's own state`,
    ...opts,
    fn: () =>
      withHost(
        async (h) => {
          const pid = await start(h);
          const fs = `/proc/${pid}/fs`;
          const [
            dir,
            before,
            ,
            appended,
            read,
            stat,
            listed,
            status,
            roStatus,
            missing,
            mkdir,
            info,
          ] = await run(
            h,
            { op: "list", path: `/proc/${pid}` },
            { op: "list", path: fs },
            { op: "write", path: `${fs}/hello`, text: "hi\n" },
            { op: "append", path: `${fs}/hello`, text: "there\n" },
            { op: "read", path: `${fs}/hello` },
            { op: "stat", path: `${fs}/hello` },
            { op: "list", path: fs },
            { op: "read", path: `${fs}/status.json` },
            { op: "write", path: `${fs}/status.json`, text: "{}" },
            { op: "read", path: `${fs}/nothing` },
            { op: "mkdir", path: `${fs}/d` },
            { op: "write", path: `/proc/${pid}/info.json`, text: "{}" },
          );
          assert.deepEqual(dir, ["control", "fs", "info.json", "log"]);
          assert.deepEqual(before, ["status.json"]);
          assert.equal(appended, null);
          assert.equal(read, "hi\nthere\n");
          assert.deepEqual(
            { len: (stat as { len: number }).len, file: (stat as { file: boolean }).file },
            { len: 9, file: true },
          );
          assert.deepEqual(listed, ["hello", "status.json"]);
          // std::fs::write: a truncate, then the data; the append: one write at the end. The
          // reads: hello, and this read of status.json itself.
          assert.deepEqual(JSON.parse(status as string), {
            files: 1,
            bytes: 9,
            reads: 2,
            writes: 3,
          });
          assert.equal(errorOf(roStatus), "ReadOnlyFilesystem");
          assert.equal(errorOf(missing), "NotFound");
          assert.ok(errorOf(mkdir), "folders are not served");
          assert.equal(errorOf(info), "ReadOnlyFilesystem", "the rest of /proc stays read-only");
          // The core reads them too (sausage cat, the agent's file tools).
          assert.equal(
            new TextDecoder().decode(await h.host.fs.read(`${fs}/hello`)),
            "hi\nthere\n",
          );

          // A process that serves nothing has no fs/; an ended server's goes with it.
          await h.result("core.stop", { pid });
          const [gone] = await run(h, { op: "read", path: `${fs}/hello` });
          assert.equal(errorOf(gone), "NotFound");
        },
        {},
        engine,
      ),
  });
}

Deno.test({
  name: "served files: a server reading its own files gets EIO after 10 s instead of hanging; " +
    "past served_requests a read is busy, past served_request_kib a write is too large",
  ...opts,
  fn: () =>
    withHost(async (h) => {
      const pid = await start(h);
      const own = h.result<{ error?: string; ms: number }>("memfs.ask", {
        endpoint: `/proc/${pid}/control`,
        method: "read_own",
        params: { path: "status.json" },
      });
      // While its own read waits, the one request it may have open is taken: the next is busy.
      await new Promise((r) => setTimeout(r, 1000));
      const [busy] = await run(h, { op: "read", path: `/proc/${pid}/fs/status.json` });
      assert.equal(errorOf(busy), "ResourceBusy");
      const r = await own;
      assert.ok(r.error, `the read failed: ${JSON.stringify(r)}`);
      assert.ok(r.ms >= 9_500 && r.ms < 20_000, `after about 10 s: ${r.ms} ms`);
      // The server goes on: its late answer is dropped, it serves again.
      const [status] = await run(h, { op: "read", path: `/proc/${pid}/fs/status.json` });
      assert.equal(JSON.parse(status as string).files, 0);
      const [big] = await run(h, {
        op: "write",
        path: `/proc/${pid}/fs/big`,
        text: "x".repeat(2048),
      });
      assert.equal(errorOf(big), "FileTooLarge");
    }, { "config/limits.json": JSON.stringify({ served_requests: 1, served_request_kib: 1 }) }),
});

Deno.test({
  name:
    "pipes: listen() writes a pipe: endpoint file; connect() from another process reaches it; " +
    "a stale file connects nothing",
  ...opts,
  fn: () =>
    withHost(async (h) => {
      const pid = await start(h);
      const file = new TextDecoder().decode(await h.host.fs.read(`/proc/${pid}/control`));
      assert.match(file, new RegExp(`^pipe:\\d+ ${pid} control\\n$`));
      await run(h, { op: "write", path: `/proc/${pid}/fs/a`, text: "abc" });
      const stats = await h.result("memfs.ask", {
        endpoint: `/proc/${pid}/control`,
        method: "stats",
      });
      assert.deepEqual(stats, { files: 1, bytes: 3, reads: 0, writes: 2 });
      // A copy of the file outlives its owner: connecting through it fails.
      await Deno.writeTextFile(`${h.root}/state/stale-control`, file);
      await h.result("core.stop", { pid });
      const stale = await h.call("memfs.ask", {
        endpoint: "/state/stale-control",
        method: "stats",
      });
      assert.match(stale.error!.message, /stale: its owner .* has ended/);
    }, { "state/.keep": "" }),
});

Deno.test({
  name: "watches: a process is told of changes to world files and /proc/core/locks.json, " +
    "coalesced; bounded by watches; released when it ends",
  ...opts,
  fn: () =>
    withHost(async (h) => {
      const watching = h.result<{ changes: { paths: string[] }[] }>("memfs.watch_for", {
        paths: ["/state/w", "/proc/core/locks.json", "/run/flag"],
        count: 4,
        ms: 3000,
        ready: "/ready",
      });
      await eventually(() => Deno.stat(`${h.root}/ready`).then(() => true, () => false), "ready");
      for (let i = 0; i < 5; i++) await Deno.writeTextFile(`${h.root}/state/w/a.txt`, `v${i}`);
      assert.equal(await h.result("memfs.hold_lock", { path: "/state/w/lock", ms: 400 }), true);
      await run(h, { op: "write", path: "/run/flag", text: "up" }); // not there when watched
      const { changes } = await watching;
      const withA = changes.filter((c) => c.paths.includes("/state/w/a.txt"));
      // Five quick writes (about ten events of the OS) come in one notification (two when the
      // writes straddle the 100 ms window on a busy machine), each path once in each.
      assert.ok(withA.length >= 1 && withA.length <= 2, `coalesced: ${JSON.stringify(changes)}`);
      for (const c of changes) assert.equal(new Set(c.paths).size, c.paths.length);
      assert.ok(
        changes.some((c) => c.paths.includes("/proc/core/locks.json")),
        `the lock was seen in locks.json: ${JSON.stringify(changes)}`,
      );
      assert.ok(
        changes.some((c) => c.paths.includes("/run/flag")),
        `/run/flag appeared: ${JSON.stringify(changes)}`,
      );
      await eventually(() => h.host.watches.size === 0, "the watch to be released");

      assert.equal(typeof await h.result("memfs.watch_many", { n: 4 }), "number");
      const over = await h.call("memfs.watch_many", { n: 5 });
      assert.equal(over.error?.code, -32004);
      assert.deepEqual(over.error?.data, { limit: "watches", value: 4 });
      const rel = await h.call("memfs.watch_for", { paths: ["state/w"], count: 1, ms: 10 });
      assert.equal(rel.error?.code, -32602, "a relative path is refused");
    }, { "state/w/.keep": "", "config/limits.json": JSON.stringify({ watches: 4 }) }),
});

Deno.test({
  name: "pipes: a process has at most `pipes` open; one more connection gets -32004",
  ...opts,
  fn: () =>
    withHost(async (h) => {
      // The server's pipe is its one: a connection to it would be its second.
      const pid = await start(h);
      const r = await h.call("memfs.ask", { endpoint: `/proc/${pid}/control`, method: "stats" });
      assert.equal(r.error?.code, -32004, JSON.stringify(r.error));
      assert.match(r.error!.message, /pipes/);
    }, { "config/limits.json": JSON.stringify({ pipes: 1 }) }),
});
