/**
 * Containment of the world's files (issue 24, items 4-6), each attack made
 * as a guest makes it, with its own WASI file operations (`tests/plugins/fsprobe`),
 * on a real host with real sandboxes:
 *
 * - a FIFO (a build may leave one) freezes nothing: the guest that opens it
 *   gets an error at once, and the core's reads of it (`$/cat`,
 *   `config/agent.json`, `config/limits.json`) do not block;
 * - `disk_mib` gives guests `insufficient-space` before the world passes it;
 * - a full disk leaves the host answering, the journal's failures counted
 *   (not spun on) and its writes resumed when space returns;
 * - `config/` is the owner's: a guest cannot raise its own limits; a bad
 *   value is reported and the host starts with the default;
 * - sandboxes read only their world's cache entries; world state is
 *   owner-only; the runtime folder survives a squatter.
 */

import assert from "node:assert/strict";
import { WorldClient } from "../core/control/world_client.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { World } from "../core/world/world.ts";
import { agentTokenEnv } from "../core/processes/agent_token.ts";
import { readLimitsChecked } from "../core/world/limits.ts";
import { cacheDir } from "../core/paths.ts";
import { ComponentCache } from "../core/cache/component_cache.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { sausage } from "./helpers/cli.ts";
import { fill, onSmallDisk } from "./helpers/small_disk.ts";

const fsprobe = await builtTestPlugin("fsprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** One fsprobe operation's outcome: its value, or `{error, message}`. */
type Outcome = { error?: string; message?: string } | unknown;

/** Runs fsprobe operations in one guest process; returns one outcome each. */
async function probe(h: TestHost, ...ops: Record<string, unknown>[]): Promise<Outcome[]> {
  return await h.result<Outcome[]>("fsprobe.run", { ops });
}

/** The error kind of an outcome (null when it worked). */
function errorOf(o: Outcome): string | null {
  return (o as { error?: string })?.error ?? null;
}

/** Makes a FIFO at `path` (as a build's `mkfifo` would). */
function mkfifo(path: string): void {
  const out = new Deno.Command("mkfifo", { args: [path] }).outputSync();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.ok(Deno.lstatSync(path).isFifo);
}

/** Rejects when `p` takes longer than `ms`: what must not block, doesn't. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms: it blocked`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A test on a fresh host with fsprobe (and `files`), always closed. */
function hostTest(
  name: string,
  fn: (h: TestHost) => Promise<void>,
  files: Record<string, string> = {},
): void {
  Deno.test({ name, ...opts }, async () => {
    const h = await TestHost.start({ plugins: { fsprobe }, files });
    try {
      await fn(h);
    } finally {
      await h.close();
    }
  });
}

// --- 4. FIFOs -------------------------------------------------------------

hostTest(
  "a guest that opens a FIFO gets not-permitted at once; its sandbox keeps answering",
  async (h) => {
    await Deno.mkdir(`${h.root}/data`);
    mkfifo(`${h.root}/data/pipe`);
    await Deno.writeTextFile(`${h.root}/data/plain.txt`, "plain");
    const started = performance.now();
    const r = await within(
      3000,
      "a guest opening a FIFO",
      probe(
        h,
        { op: "read", path: "/data/pipe" },
        { op: "write", path: "/data/pipe", text: "x" },
        { op: "append", path: "/data/pipe", text: "x" },
        { op: "truncate", path: "/data/pipe", len: 0 },
        { op: "read", path: "/data/plain.txt" },
      ),
    );
    const ms = performance.now() - started;
    for (const o of r.slice(0, 4)) assert.equal(errorOf(o), "PermissionDenied", JSON.stringify(o));
    assert.equal(r[4], "plain", "regular files still open");
    assert.ok(ms < 3000, `answered in ${ms.toFixed(0)} ms`);
    // Another call on the same sandbox answers (nothing waits on the FIFO).
    assert.deepEqual(await probe(h, { op: "exists", path: "/data/pipe" }), [true]);
  },
);

Deno.test({
  name: "the core never blocks on a FIFO: $/cat, config/agent.json, config/limits.json",
  ...opts,
}, async () => {
  // fsprobe also as `agent`: the host reads config/agent.json before each of its processes.
  const root = await makeWorld({ plugins: { fsprobe, agent: fsprobe } });
  await Deno.mkdir(`${root}/data`);
  await Deno.mkdir(`${root}/config`, { recursive: true });
  mkfifo(`${root}/data/pipe`);
  mkfifo(`${root}/config/agent.json`);
  mkfifo(`${root}/config/limits.json`);
  // `agent.*` reads config/agent.json for its token: a FIFO there gives nothing, at once.
  const t0 = performance.now();
  assert.deepEqual(agentTokenEnv(root, "agent", () => "secret"), []);
  const read = readLimitsChecked(root);
  assert.ok(performance.now() - t0 < 1000);
  assert.match(read.problems.join("\n"), /config\/limits\.json: cannot be read .*FIFO/);
  assert.equal(read.limits.memory_mib, 256, "the defaults stand");
  // A host starts on the world with the FIFOs in place, and serves it.
  const h = await within(30_000, "a host start", TestHost.open(root));
  const control = await ControlServer.start(h.host);
  try {
    const client = await WorldClient.connect(new World(root));
    assert.ok(client);
    try {
      await assert.rejects(
        within(2000, "$/cat of a FIFO", client.request("$/cat", { path: "/data/pipe" })),
        /not-permitted/,
      );
      await assert.rejects(
        within(2000, "$/cat of a FIFO", client.request("$/cat", { path: "/config/agent.json" })),
        /not-permitted/,
      );
      // The host's main thread is free: it still answers.
      assert.ok(await within(2000, "$/ps", client.request("$/ps", {})));
    } finally {
      client.close();
    }
    const r = await probe(h, { op: "read", path: "/config/agent.json" });
    assert.equal(errorOf(r[0]), "PermissionDenied");
    // An `agent.*` call with a FIFO at config/agent.json: answered, nothing waits on it.
    const agent = await within(
      5000,
      "an agent.* call",
      h.result<Outcome[]>("agent.run", { ops: [{ op: "exists", path: "/config/agent.json" }] }),
    );
    assert.deepEqual(agent, [true]);
  } finally {
    control.close();
    await h.close();
  }
});

// --- 4. disk_mib and a full disk -------------------------------------------

/** The bytes of the regular files under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of Deno.readDirSync(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) total += bytesUnder(path);
    else if (e.isFile) total += Deno.lstatSync(path).size;
  }
  return total;
}

const MiB = 2 ** 20;

hostTest(
  "disk_mib: a guest's write that would pass the world's bound gets insufficient-space first",
  async (h) => {
    const r = await probe(
      h,
      { op: "mkdir", path: "/data" },
      { op: "write", path: "/data/a.bin", text: "" },
      { op: "write", path: "/data/b.bin", text: "" },
      { op: "write", path: "/data/c.bin", text: "" },
      // A sparse file counts whole: 8 MiB of the 16.
      { op: "seek_write", path: "/data/a.bin", offset: 8 * MiB, text: "x" },
      { op: "seek_write", path: "/data/b.bin", offset: 12 * MiB, text: "x" },
      { op: "truncate", path: "/data/a.bin", len: 40 * MiB },
      { op: "write", path: "/data/small.txt", text: "still fits" },
      { op: "remove", path: "/data/a.bin" },
      // What was deleted is given back.
      { op: "seek_write", path: "/data/b.bin", offset: 12 * MiB, text: "x" },
      { op: "seek_write", path: "/data/c.bin", offset: 6 * MiB, text: "x" },
    );
    const full = [5, 6, 10];
    r.forEach((o, i) => {
      if (full.includes(i)) {
        assert.equal(errorOf(o), "StorageFull", `op ${i}: ${JSON.stringify(o)}`);
      } else assert.equal(o, null, `op ${i}: ${JSON.stringify(o)}`);
    });
    const used = bytesUnder(h.root);
    assert.ok(used <= 16 * MiB, `the world holds ${used} bytes, within its 16 MiB`);
    assert.equal(Deno.statSync(`${h.root}/data/b.bin`).size, 12 * MiB + 1);
  },
  { "config/limits.json": JSON.stringify({ disk_mib: 16 }) },
);

/** CPU time (user + system) this process used, in ms (every thread: other test modules too). */
function cpuMs(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** The answer of a call on a full disk: -32004 naming the journal's disk; null when it worked. */
async function refusal(h: TestHost, root: string): Promise<Record<string, unknown> | null> {
  const r = await h.call("fsprobe.run", { ops: [{ op: "eprint", text: "refused" }] });
  if (!r.error) return null;
  assert.equal(r.error.code, -32004, JSON.stringify(r.error));
  const data = r.error.data as Record<string, unknown>;
  assert.equal(data.limit, "journal_reserve_mib");
  assert.equal(data.disk, `${root}/state/core`);
  assert.match(r.error.message, /the disk of .* is full/);
  return data;
}

Deno.test({
  name:
    "a full disk without a reserve: the host answers queries, refuses calls (-32004 naming the disk); journal failures are counted, not spun on, and writes resume when space returns",
  ...opts,
  ignore: Deno.uid() !== 0,
}, async () => {
  await onSmallDisk(24, { fsprobe }, { journal_reserve_mib: 0 }, async (root, mnt) => {
    const h = await TestHost.open(root);
    const control = await ControlServer.start(h.host);
    try {
      await probe(h, { op: "eprint", text: "before the disk filled" });
      // A guest that runs while the disk fills, then logs: the journal cannot write its lines.
      const burst = Array.from({ length: 3000 }, (_, i) => ({ op: "eprint", text: `burst ${i}` }));
      const running = probe(
        h,
        { op: "sleep", ms: 1500 },
        ...Array.from({ length: 5 }, (_, i) => ({ op: "eprint", text: `while full ${i}` })),
        // A burst of lines while full (once 1,000 waited, each line used to try a write).
        ...burst,
        // A guest's write gets the disk's own insufficient-space.
        { op: "write", path: "/big.txt", text: "x".repeat(1 << 20) },
      );
      const filled = fill(`${mnt}/filler`);
      assert.ok(filled > 0);
      const outcomes = await within(15_000, "a burst of lines", running);
      assert.equal(errorOf(outcomes.at(-1)), "StorageFull", JSON.stringify(outcomes.at(-1)));
      await eventually(() => h.host.journal.health.view().failing_since, "a journal failure");
      const cpu0 = cpuMs();
      const t0 = performance.now();
      // For three seconds: $/hello, $/ps and $/cat answer; calls are refused, naming the disk.
      const client = await within(3000, "$/hello", WorldClient.connect(new World(root)));
      assert.ok(client, "the control socket answers $/hello");
      let failingViews = 0, refusals = 0, taken = 0;
      try {
        while (performance.now() - t0 < 3000) {
          const cat = await within(
            3000,
            "$/cat",
            client.request("$/cat", { path: "/proc/core/journal.json" }),
          );
          const view = JSON.parse(atob(cat as string));
          assert.ok(view.write_failures >= 1);
          // A failed write may give back a page (SQLite's, a short file) that the next try
          // writes into: for that moment the disk takes entries again and calls are taken.
          if (view.disk === "failing") {
            assert.ok(view.failing_since);
            failingViews++;
          } else assert.equal(view.disk, "ok", JSON.stringify(view));
          assert.ok(await within(3000, "$/ps", client.request("$/ps", {})));
          // What a failed write gave back is taken again first.
          fill(`${mnt}/filler-top-up`);
          const refused = await within(3000, "a call", refusal(h, root));
          if (refused) {
            assert.equal(refused.state, "failing");
            refusals++;
          } else taken++;
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        client.close();
      }
      assert.ok(failingViews >= 1 && refusals >= 1, `${failingViews} views said failing`);
      assert.ok(refusals > taken, `${refusals} calls refused, ${taken} taken on the full disk`);
      const elapsed = performance.now() - t0;
      const cpu = cpuMs() - cpu0;
      const view = h.host.journal.health.view();
      // Tries are paused (0.1 s doubling to 5 s): a handful, not one per entry or per 5 ms (a
      // spin would count hundreds here). The CPU figure is printed, not asserted: it is the whole
      // test process's, and `deno test --parallel` runs other modules as threads of this process.
      assert.ok(view.write_failures < 30, `${view.write_failures} failed writes in ${elapsed} ms`);
      console.error(
        `full disk: ${view.write_failures} failed journal writes, ${cpu} ms CPU in ${
          elapsed.toFixed(0)
        } ms`,
      );
      // Space returns: the journal writes what it kept, and calls are taken again.
      Deno.removeSync(`${mnt}/filler`);
      await eventually(
        () => h.host.journal.health.view().failing_since === null,
        "journal writes to resume",
        15_000,
      );
      const lines = h.host.journal.query({ grep: "while full", limit: 100 })
        .filter((e) => e.stream === "stderr").map((e) => e.line);
      assert.equal(lines.length, 5, "the entries of the full disk were kept and written");
      assert.ok(h.host.journal.query({ grep: "journal-writes-resumed" }).length >= 1);
      assert.equal(await refusal(h, root), null, "calls are taken again");
    } finally {
      control.close();
      await h.host.shutdown(200);
    }
  });
});

Deno.test({
  name:
    "a full disk with the reserve: the journal writes into it, calls are refused, and taken again once the reserve is made again",
  ...opts,
  ignore: Deno.uid() !== 0,
}, async () => {
  await onSmallDisk(24, { fsprobe }, { journal_reserve_mib: 2 }, async (root, mnt) => {
    const h = await TestHost.open(root);
    try {
      const reserve = `${root}/state/core/journal.reserve`;
      await eventually(
        () => {
          try {
            return Deno.statSync(reserve).size === 2 * MiB;
          } catch {
            return false;
          }
        },
        "the reserve to be made (by the journal's worker, once it has started)",
        60_000,
      );
      const running = probe(
        h,
        { op: "sleep", ms: 1000 },
        ...Array.from({ length: 5 }, (_, i) => ({ op: "eprint", text: `while full ${i}` })),
      );
      fill(`${mnt}/filler`);
      await within(15_000, "the guest's lines", running);
      await eventually(async () => (await refusal(h, root))?.state, "a call refused");
      assert.equal((await refusal(h, root))?.state, "reserve-in-use");
      // Written at once, into the reserve's space: no write failed.
      const lines = () =>
        h.host.journal.query({ grep: "while full", limit: 100 }).filter((e) =>
          e.stream === "stderr"
        );
      assert.equal(lines().length, 5);
      assert.equal(h.host.journal.health.view().write_failures, 0);
      assert.throws(() => Deno.statSync(reserve), Deno.errors.NotFound, "the reserve was given");
      Deno.removeSync(`${mnt}/filler`);
      await eventually(async () => (await refusal(h, root)) === null, "calls taken again", 30_000);
      assert.equal(Deno.statSync(reserve).size, 2 * MiB, "the reserve is set aside again");
      assert.equal(h.host.journal.query({ grep: "journal-reserve-restored" }).length, 1);
    } finally {
      await h.host.shutdown(200);
    }
  });
});

// --- 5. Limits belong to the owner ------------------------------------------

hostTest(
  "a guest cannot raise its own limits: config/ is read-only to guests, and a restart keeps the owner's",
  async (h) => {
    const owners = Deno.readTextFileSync(`${h.root}/config/limits.json`);
    const raised = JSON.stringify({ memory_mib: 4096, stall_ms: 3_600_000 });
    const r = await probe(
      h,
      { op: "write", path: "/config/limits.json", text: raised },
      { op: "truncate", path: "/config/limits.json", len: 0 },
      { op: "remove", path: "/config/limits.json" },
      { op: "create_new", path: "/config/agent.json", text: "{}" },
      { op: "mkdir", path: "/config/more" },
      // Around it: a file made elsewhere and renamed in, the folder renamed away.
      { op: "write", path: "/raised.json", text: raised },
      { op: "rename", from: "/raised.json", to: "/config/limits.json" },
      { op: "rename", from: "/config/limits.json", to: "/gone.json" },
      { op: "rename", from: "/config", to: "/config-old" },
      { op: "rmdir", path: "/config" },
      { op: "read", path: "/config/limits.json" },
    );
    const allowed = [5, 10];
    r.forEach((o, i) => {
      if (allowed.includes(i)) return;
      assert.equal(errorOf(o), "ReadOnlyFilesystem", `op ${i}: ${JSON.stringify(o)}`);
    });
    assert.equal(r[10], owners, "guests may read it");
    assert.equal(Deno.readTextFileSync(`${h.root}/config/limits.json`), owners);
    assert.deepEqual([...Deno.readDirSync(`${h.root}/config`)].map((e) => e.name), ["limits.json"]);
    await h.host.shutdown(200);
    const again = new (await import("../core/host.ts")).Host(h.root, { sandboxes: 1 });
    try {
      assert.equal(again.limits.memory_mib, 64, "the owner's limit after a restart");
      assert.equal(again.limits.stall_ms, 10_000);
    } finally {
      await again.shutdown(200);
    }
  },
  { "config/limits.json": JSON.stringify({ memory_mib: 64 }) },
);

Deno.test({
  name:
    "a bad config/limits.json is reported with the file, the key and the default; run and call work",
  ...opts,
}, async () => {
  const root = await makeWorld({
    plugins: { fsprobe },
    files: {
      "config/limits.json": JSON.stringify({
        memory_mib: "lots",
        stall_ms: 5,
        frobs: 1,
        processes: 50,
      }),
    },
  });
  try {
    const read = readLimitsChecked(root);
    assert.equal(read.limits.memory_mib, 256);
    assert.equal(read.limits.stall_ms, 10_000);
    assert.equal(read.limits.processes, 50, "the good keys apply");
    const call = await sausage(
      "call",
      root,
      "fsprobe.run",
      JSON.stringify({ ops: [{ op: "read", path: "/config/limits.json" }] }),
    );
    assert.equal(call.code, 0, call.stderr);
    assert.match(JSON.parse(call.stdout)[0], /lots/);
    assert.match(
      call.stderr,
      /config\/limits\.json: "memory_mib" is "lots", not an integer from 1 to \d+; the default 256 is used/,
    );
    assert.match(call.stderr, /"stall_ms" is 5, .*the default 10000 is used/);
    assert.match(call.stderr, /unknown key "frobs" ignored/);
    // `run` starts too (headless), and answers a call through its socket.
    const run = new Deno.Command(new URL("../sausage", import.meta.url).pathname, {
      args: ["run", root, "--headless"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      await eventually(
        async () => {
          const c = await WorldClient.connect(new World(root));
          c?.close();
          return c !== null;
        },
        "the host to start",
        30_000,
      );
      const client = (await WorldClient.connect(new World(root)))!;
      try {
        const r = await client.request("fsprobe.run", { ops: [{ op: "exists", path: "/" }] });
        assert.deepEqual(r, [true]);
      } finally {
        client.close();
      }
    } finally {
      run.kill("SIGTERM");
      const err = new TextDecoder().decode((await run.output()).stderr);
      assert.match(err, /"memory_mib" is "lots"/);
    }
    const logged = await sausage("log", root, "--json", "-n", "1000");
    assert.match(logged.stdout, /limits-problem.*memory_mib/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

// --- 6. Owner-only state, the runtime folder, the cache ----------------------

/** The permission bits of a path. */
const modeOf = (path: string) => (Deno.statSync(path).mode ?? 0) & 0o777;

Deno.test({
  name:
    "world state is owner-only: a new world, state/, the journal and host.json (an old world's tightened)",
  ...opts,
}, async () => {
  const parent = await Deno.makeTempDir({ prefix: "sausage-modes-" });
  try {
    const made = await sausage("new", `${parent}/w`);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(modeOf(`${parent}/w`), 0o700, "sausage new makes the world owner-only");
    // An older world: its state folders and journal readable by everyone.
    const root = await makeWorld({ plugins: { fsprobe } });
    await Deno.chmod(root, 0o755);
    await Deno.mkdir(`${root}/state/core`, { recursive: true, mode: 0o755 });
    await Deno.chmod(`${root}/state`, 0o755);
    await Deno.chmod(`${root}/state/core`, 0o755);
    await Deno.writeFile(`${root}/state/core/journal.sqlite`, new Uint8Array(), { mode: 0o644 });
    await Deno.chmod(`${root}/state/core/journal.sqlite`, 0o644);
    const h = await TestHost.open(root);
    const control = await ControlServer.start(h.host);
    try {
      await probe(h, { op: "eprint", text: "a line for the journal" });
      h.host.journal.flush();
      assert.equal(modeOf(`${root}/state`), 0o700);
      assert.equal(modeOf(`${root}/state/core`), 0o700);
      assert.equal(modeOf(`${root}/state/core/journal.sqlite`), 0o600);
      assert.equal(modeOf(`${root}/state/core/journal.sqlite-wal`), 0o600);
      assert.equal(modeOf(`${root}/state/core/host.json`), 0o600);
    } finally {
      control.close();
      await h.close();
    }
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test({
  name:
    "the runtime folder survives a squatter: host and clients pass over a folder another user made first",
  ...opts,
  ignore: Deno.uid() !== 0, // making a folder owned by another user needs root
}, async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sausage-squat-" });
  const root = await makeWorld({ plugins: { fsprobe } });
  // Another user (uid 12345) made "our" folder first, open to all.
  const squat = `${tmp}/sausage-${Deno.uid()}`;
  await Deno.mkdir(squat, { mode: 0o777 });
  await Deno.chmod(squat, 0o777);
  await Deno.chown(squat, 12345, 12345);
  await Deno.mkdir(`${tmp}/home`);
  const env = {
    TMPDIR: tmp,
    HOME: `${tmp}/home`,
    XDG_RUNTIME_DIR: "",
    SAUSAGE_RUNTIME_DIR: "",
    // The shared caches (a new HOME would start empty ones: a minute of compiling).
    SAUSAGE_CACHE_DIR: cacheDir(),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  };
  const launcher = new URL("../sausage", import.meta.url).pathname;
  const run = new Deno.Command(launcher, {
    args: ["run", root, "--headless"],
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const ps = await eventually(
      async () => {
        const out = await new Deno.Command(launcher, { args: ["ps", root], env }).output();
        return out.code === 0 && !new TextDecoder().decode(out.stderr).includes("no host runs") &&
          out;
      },
      "a client to reach the host",
      30_000,
    );
    assert.ok(ps);
    const sockets = [...Deno.readDirSync(`${tmp}/home/.sausage/run`)].map((e) => e.name);
    assert.ok(sockets.some((n) => n.endsWith(".sock")), "the socket is in the fallback folder");
    assert.equal(modeOf(`${tmp}/home/.sausage/run`), 0o700);
    assert.deepEqual([...Deno.readDirSync(squat)], [], "nothing went into the squatter's folder");
    const call = await new Deno.Command(launcher, {
      args: ["call", root, "fsprobe.run", '{"ops":[{"op":"exists","path":"/"}]}'],
      env,
    }).output();
    assert.equal(
      new TextDecoder().decode(call.stdout).trim(),
      "[true]",
      new TextDecoder().decode(call.stderr),
    );
  } finally {
    run.kill("SIGTERM");
    const err = new TextDecoder().decode((await run.output()).stderr);
    assert.match(err, /sausage-0 belongs to another user \(uid 12345\).*\.sausage\/run instead/);
    await Deno.remove(tmp, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "a sandbox reads only its world's cache entries, not another world's components",
  ...opts,
}, async () => {
  const probeWasm = await builtTestPlugin("probe");
  const a = await TestHost.start({ plugins: { fsprobe } });
  const b = await TestHost.start({ plugins: { probe: probeWasm } });
  try {
    const t0 = performance.now();
    assert.deepEqual(await probe(a, { op: "exists", path: "/" }), [true]);
    const firstCallMs = performance.now() - t0;
    assert.ok(await b.result("probe.echo", { x: 1 }));
    const cmdline = (pid: number) =>
      Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").filter((x) => x);
    const sandboxPid = a.host.pool.sandboxes[0].osPid;
    const args = cmdline(sandboxPid);
    const readable = args.find((x) => x.startsWith("--allow-read="))!.slice(13).split(",");
    // Besides the world and its cache view, only the sandbox's own hop folder (a private temporary
    // folder for the socket to the core, removed once connected).
    const allowRead = readable.filter((x) => !/\/sausage-hop-[^/]+$/.test(x));
    assert.ok(readable.length - allowRead.length <= 1, readable.join(","));
    assert.equal(allowRead.length, 2, allowRead.join(","));
    assert.equal(allowRead[0], a.root);
    assert.match(allowRead[1], /\/views\/[0-9a-f]{16}$/);
    const bView = b.host.pool.sandboxes[0];
    assert.ok(bView);
    // Only the entry of A's one plugin is in A's view.
    assert.equal([...Deno.readDirSync(allowRead[1])].length, 1);
    // B's component, wherever it is in the cache, is outside what A's sandbox may read.
    const bArgs = cmdline(b.host.pool.sandboxes[0].osPid);
    const bEntryRoot = bArgs.find((x) => x.startsWith("--allow-read="))!.slice(13).split(",")[1];
    /** A file of a cache entry (`main.wasm` on the preview-1 path, `plugin.js` on jco's). */
    const fileOf = (entry: string) =>
      `${entry}/${
        [...Deno.readDirSync(entry)].find((e) => e.isFile && e.name !== "preempt.json")!.name
      }`;
    const bEntry = fileOf(`${bEntryRoot}/${[...Deno.readDirSync(bEntryRoot)][0].name}`);
    const cacheEntry = fileOf((await new ComponentCache(cacheDir()).load(probeWasm)).dir);
    const script = await Deno.makeTempFile({ suffix: ".ts" });
    await Deno.writeTextFile(
      script,
      `try { Deno.readFileSync(Deno.args[0]); console.log("read") } catch (e) { console.log(e.name) }`,
    );
    /** What A's sandbox's permissions make of reading `target`. */
    const withAsPermissions = async (target: string) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", `--allow-read=${allowRead.join(",")}`, script, target],
      }).output();
      return new TextDecoder().decode(out.stdout).trim();
    };
    try {
      for (const target of [bEntry, cacheEntry]) {
        assert.ok(Deno.statSync(target).isFile);
        assert.equal(await withAsPermissions(target), "NotCapable", target);
      }
      const own = fileOf(`${allowRead[1]}/${[...Deno.readDirSync(allowRead[1])][0].name}`);
      assert.equal(await withAsPermissions(own), "read", "its own entry reads");
    } finally {
      await Deno.remove(script);
    }
    console.error(
      `first call on a fresh host (linking its one entry): ${firstCallMs.toFixed(1)} ms`,
    );
  } finally {
    await a.close();
    await b.close();
  }
});
