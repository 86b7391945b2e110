/**
 * Starting guests, over the real process table, lifecycle, start checks,
 * log and an in-memory journal; only the sandbox (a subprocess) and the
 * component cache (which would build) stand in. What a sandbox says about a
 * process becomes its end: a memory bound's trap is that limit, with its
 * value, journaled; nothing from a process that ended reaches anyone.
 */

import { strict as assert } from "node:assert";
import { INITIAL_MEMORY_TRAP, WORLD_MEMORY_TRAP } from "../../sandbox/hop/terms.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import { Journal } from "../journal/journal.ts";
import { defaultLimits, type Limits } from "../world/limits.ts";
import { noProc, recordingCaller, RecordingSandbox } from "../_test_utils.ts";
import { FailingPlugins } from "./failing_plugins.ts";
import { GuestSpawner } from "./guest_spawn.ts";
import { Lifecycle } from "./process_lifecycle.ts";
import { ProcessLog } from "./process_log.ts";
import { ProcessTable } from "./process_table.ts";
import { StartChecks } from "./start_checks.ts";

/** A spawner over real parts, its journal in memory; `fn` runs with it, the journal closes after. */
async function withSpawner(
  limits: Partial<Limits>,
  fn: (s: {
    spawner: GuestSpawner;
    sandbox: RecordingSandbox;
    journal: Journal;
    stdout: string[];
    limits: Limits;
  }) => Promise<void>,
): Promise<void> {
  const all = { ...defaultLimits(), ...limits };
  const journal = new Journal(":memory:");
  const table = new ProcessTable();
  const sandbox = new RecordingSandbox();
  const failing = new FailingPlugins(
    all.failing_calls,
    all.failing_hold_ms,
    (event, fields) => journal.coreEvent(event, fields),
  );
  const log = new ProcessLog(journal, all.log_lines_per_second);
  const lifecycle = new Lifecycle({ table, log, journal, failing, onEnd: [] });
  const stdout: string[] = [];
  const spawner = new GuestSpawner({
    world: {
      root: "/the/world",
      currentComponent: (name) => ({ path: `/plugins/${name}/plugin.wasm`, info: undefined }),
    },
    journal,
    placer: { place: () => Promise.resolve(sandbox) },
    cache: {
      load: () => Promise.resolve({ hash: "h", dir: "/cache/h", engine: "p1" as const }),
    },
    mounts: { proc: new MemMount(), run: new MemMount(), source: noProc, world: new MemMount() },
    limits: all,
    log,
    lifecycle,
    checks: new StartChecks(all, table, failing, journal),
    onStdout: (_p, line) => stdout.push(line),
  });
  try {
    await fn({ spawner, sandbox, journal, stdout, limits: all });
  } finally {
    journal.close();
  }
}

/** A call of `plugin.run` by a fresh caller that waits for it. */
const callOf = (plugin = "p") => ({
  plugin,
  method: "run",
  params: {},
  caller: recordingCaller(),
  callerId: 1,
  detached: false,
});

/** The core's `limit` events about the process `pid` (journaled under the pid `core`). */
const limitEvents = (journal: Journal, pid: string) =>
  journal.query({ pid: "core" }).map((e) => JSON.parse(e.line)).filter((e) =>
    e.event === "limit" && e.pid === pid
  );

Deno.test("the run message carries the limits in bytes, the world, and the call as the first stdin line", async () => {
  await withSpawner({ memory_mib: 3, line_mib: 2, output_window_kib: 5 }, async (s) => {
    const p = await s.spawner.call(callOf("notes"));
    const [run] = s.sandbox.runs;
    assert.equal(run.pid, p.pid);
    assert.equal(run.world, "/the/world");
    assert.equal(run.dir, "/cache/h");
    assert.equal(run.memoryLimit, 3 * 2 ** 20);
    assert.equal(run.maxLine, 2 * 2 ** 20);
    assert.equal(run.outputWindow, 5 * 1024);
    assert.deepEqual(JSON.parse(run.request!), {
      jsonrpc: "2.0",
      id: p.pid,
      method: "run",
      params: {},
    });
    assert.ok(p.pid.startsWith("notes-"));
  });
});

Deno.test("an exit whose trap is the world's memory bound ends the process with world_memory_mib, journaled", async () => {
  await withSpawner({ world_memory_mib: 64 }, async (s) => {
    const p = await s.spawner.call(callOf());
    const trap = `${WORLD_MEMORY_TRAP}: the world's processes use all the memory it allows`;
    s.sandbox.guest({ op: "exit", pid: p.pid, status: 1, error: trap });
    assert.deepEqual(await p.ended, { status: 1, trap, limit: "world_memory_mib", value: 64 });
    assert.deepEqual(limitEvents(s.journal, p.pid), [
      { event: "limit", limit: "world_memory_mib", value: 64, pid: p.pid },
    ]);
  });
});

Deno.test("an exit whose trap is the initial memory bound ends the process with memory_mib", async () => {
  await withSpawner({ memory_mib: 4 }, async (s) => {
    const p = await s.spawner.call(callOf());
    const trap = `${INITIAL_MEMORY_TRAP}: a module declares 5 MiB`;
    s.sandbox.guest({ op: "exit", pid: p.pid, status: 1, error: trap });
    assert.deepEqual(await p.ended, { status: 1, trap, limit: "memory_mib", value: 4 });
    assert.equal(limitEvents(s.journal, p.pid).length, 1);
  });
});

Deno.test("a trap that only mentions a memory bound later is a plain trap, with no limit", async () => {
  await withSpawner({}, async (s) => {
    const p = await s.spawner.call(callOf());
    const trap = `unreachable (not a ${WORLD_MEMORY_TRAP})`;
    s.sandbox.guest({ op: "exit", pid: p.pid, status: 1, error: trap });
    assert.deepEqual(await p.ended, { status: 1, trap });
    assert.deepEqual(limitEvents(s.journal, p.pid), []);
  });
});

Deno.test("what a sandbox says of a process after its exit reaches no one and is not answered", async () => {
  await withSpawner({}, async (s) => {
    const p = await s.spawner.call(callOf());
    s.sandbox.guest({ op: "out", pid: p.pid, line: "before" });
    s.sandbox.guest({ op: "exit", pid: p.pid, status: 0 });
    await p.ended;
    const sentBefore = s.sandbox.sent.length;
    s.sandbox.guest({ op: "out", pid: p.pid, line: "after" });
    s.sandbox.guest({ op: "err", pid: p.pid, line: "after" });
    s.sandbox.guest({
      op: "fs",
      pid: p.pid,
      id: 1,
      mount: "run",
      call: { method: "readDir", args: [""] },
    });
    await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(s.stdout, ["before"]);
    assert.equal(s.sandbox.sent.length, sentBefore, "no reply, no took");
    assert.ok(!s.journal.query({ pid: p.pid }).some((e) => e.line === "after"));
  });
});
