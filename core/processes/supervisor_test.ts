/**
 * The supervisor alone, over fakes of what it drives: a sandbox that
 * records what the core sends and speaks for its guests, a world and a
 * component cache that load nothing, an in-memory journal. No plugin is
 * built and no sandbox process runs.
 */

import { strict as assert } from "node:assert";
import { ErrorCode, HostError } from "../../rpc/errors.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import type { FsCall } from "../../vfs/wire.ts";
import type { Caller } from "./process.ts";
import { Journal } from "../journal/journal.ts";
import { defaultLimits, type Limits } from "../world/limits.ts";
import { ProcessTable } from "./process_table.ts";
import type { NativeMethod } from "./native_process.ts";
import type { SpawnRequest } from "./spawn_request.ts";
import { Supervisor } from "./supervisor.ts";
import {
  noProc,
  recordingCaller as caller,
  RecordingSandbox as FakeSandbox,
} from "../_test_utils.ts";

/** What a test's supervisor is made with, beside its fakes. */
interface SetupOptions {
  /** Limits instead of the defaults. */
  limits?: Partial<Limits>;
  /** The mount that is `/run`. */
  run?: MemMount;
  /** Native methods by `<plugin>.<method>`. */
  natives?: Record<string, NativeMethod>;
  /** Refuse every plugin, with this message. */
  noPlugins?: (method: string) => string;
}

/**
 * A supervisor over fakes: one sandbox, a cache that loads nothing, a
 * journal in memory; the stdout lines of its processes and its ends recorded.
 */
function setup(opts: SetupOptions = {}) {
  const sandbox = new FakeSandbox();
  const journal = new Journal(":memory:");
  const table = new ProcessTable();
  const loaded: string[] = [];
  /** Each stdout line handed on, with its pid. */
  const stdout: [string, string][] = [];
  /** The pids of the processes that ended, in order. */
  const ended: string[] = [];
  const sup = new Supervisor({
    world: {
      root: "/no/world",
      currentComponent: (name) => ({ path: `/plugins/${name}/plugin.wasm`, info: undefined }),
    },
    journal,
    table,
    placer: { place: () => Promise.resolve(sandbox) },
    cache: {
      load(path) {
        loaded.push(path);
        return Promise.resolve({
          hash: "h",
          dir: `/cache/${path.split("/")[2]}`,
          engine: "jco" as const,
        });
      },
    },
    mounts: {
      proc: new MemMount(),
      run: opts.run ?? new MemMount(),
      source: noProc,
      world: new MemMount(),
    },
    limits: { ...defaultLimits(), ...opts.limits },
    onStdout: (p, line) => stdout.push([p.pid, line]),
    onEnd: [(p) => ended.push(p.pid)],
    natives: new Map(Object.entries(opts.natives ?? {})),
    noPlugins: opts.noPlugins,
  });
  /** The core events journaled for `pid`, parsed. */
  const events = (pid: string) =>
    journal.query({ pid }).filter((e) => e.stream === "core").map((e) => JSON.parse(e.line));
  /** The stderr lines journaled for `pid`. */
  const stderr = (pid: string) =>
    journal.query({ pid }).filter((e) => e.stream === "stderr").map((e) => e.line);
  return { sup, sandbox, journal, table, loaded, stdout, ended, events, stderr };
}

/** What a test gets from {@link setup}. */
type Setup = ReturnType<typeof setup>;

/**
 * A test on a supervisor over fakes (see {@link setup}), made with these
 * options; its journal is closed at the end.
 */
function supervisorTest(name: string, fn: (s: Setup) => Promise<void>): void;
function supervisorTest(
  name: string,
  opts: SetupOptions,
  fn: (s: Setup) => Promise<void>,
): void;
function supervisorTest(
  name: string,
  ...args: [(s: Setup) => Promise<void>] | [SetupOptions, (s: Setup) => Promise<void>]
): void {
  const [opts, fn] = args.length === 1 ? [{}, args[0]] : args;
  Deno.test(name, async () => {
    const s = setup(opts);
    try {
      await fn(s);
    } finally {
      s.journal.close();
    }
  });
}

function call(c: Caller, plugin: string, method = "run", more: Partial<SpawnRequest> = {}) {
  return { plugin, method, params: { n: 1 }, caller: c, callerId: 7, detached: false, ...more };
}

const turn = () => new Promise((r) => setTimeout(r, 0));

supervisorTest("spawn starts a fresh instance of the plugin's component with its request and env", {
  limits: { memory_mib: 2, line_mib: 1 },
}, async ({ sup, sandbox, table, loaded, events }) => {
  const c = caller();
  const p = await sup.spawn(call(c, "notes", "add"));
  assert.match(p.pid, /^notes-[0-9a-f-]{36}$/);
  assert.deepEqual(loaded, ["/plugins/notes/plugin.wasm"]);
  assert.deepEqual(sandbox.runs, [{
    op: "run",
    pid: p.pid,
    world: "/no/world",
    memoryLimit: 2 * 2 ** 20,
    maxLine: 2 ** 20,
    outputWindow: 16 * 1024,
    dir: "/cache/notes",
    env: [["SAUSAGE_PID", p.pid], ["SAUSAGE_PLUGIN", "notes"], ["SAUSAGE_PARENT", "console"]],
    request: JSON.stringify({ jsonrpc: "2.0", id: p.pid, method: "add", params: { n: 1 } }),
  }]);
  assert.equal(table.get(p.pid), p);
  assert.ok(c.children.has(p), "an attached child of its caller");
  assert.deepEqual(events(p.pid), [
    {
      event: "start",
      method: "add",
      params: { n: 1 },
      parent: "console",
      detached: false,
      engine: "jco",
    },
  ]);
  p.deliver({ jsonrpc: "2.0", method: "x", params: {} });
  assert.deepEqual(sandbox.sent, [{
    op: "in",
    pid: p.pid,
    line: '{"jsonrpc":"2.0","method":"x","params":{}}',
  }]);
});

supervisorTest(
  "a detached process has the core as parent and is nobody's child",
  async ({ sup, sandbox }) => {
    const c = caller("notes-1");
    const p = await sup.spawn(call(c, "www", "start", { detached: true, callerId: undefined }));
    assert.equal(p.parent, "core");
    assert.equal(c.children.size, 0);
    assert.deepEqual(sandbox.runs[0].env[2], ["SAUSAGE_PARENT", "core"]);
  },
);

supervisorTest(
  "a guest's stdout lines go to onStdout, its stderr lines to the journal and its log",
  async ({ sup, sandbox, stdout, stderr }) => {
    const p = await sup.spawn(call(caller(), "notes"));
    sandbox.guest({ op: "out", pid: p.pid, line: '{"jsonrpc":"2.0"}' });
    sandbox.guest({ op: "err", pid: p.pid, line: "warming up" });
    assert.deepEqual(stdout, [[p.pid, '{"jsonrpc":"2.0"}']]);
    assert.deepEqual(stderr(p.pid), ["warming up"]);
    assert.equal(p.lines.at(-1), "warming up");
  },
);

supervisorTest(
  "a guest that exits without answering: -32002 to its caller, out of the table, onEnd told",
  async ({ sup, sandbox, table, ended, events }) => {
    const c = caller();
    const p = await sup.spawn(call(c, "notes"));
    sandbox.guest({ op: "exit", pid: p.pid, status: 1, error: "unreachable" });
    assert.deepEqual(await p.ended, { status: 1, trap: "unreachable" });
    assert.equal(table.size, 0);
    assert.equal(c.children.size, 0);
    assert.deepEqual(ended, [p.pid]);
    assert.equal(c.got.length, 1);
    const error = (c.got[0] as { error: { code: number; message: string } }).error;
    assert.equal(error.code, ErrorCode.NoAnswer);
    assert.match(error.message, /ended without an answer: it trapped \(unreachable\)/);
    assert.deepEqual(events(p.pid).at(-1), { event: "exit", status: 1, trap: "unreachable" });
    // Late messages from the sandbox change nothing.
    sandbox.guest({ op: "exit", pid: p.pid, status: 0 });
    assert.deepEqual(ended, [p.pid]);
  },
);

supervisorTest(
  "stop closes stdin and kills after the grace period; a guest that exits in time is not killed",
  async ({ sup, sandbox, events }) => {
    const slow = await sup.spawn(call(caller(), "slow"));
    assert.deepEqual(await sup.stop(slow, 10), { status: "killed" });
    assert.deepEqual(sandbox.opsFor(slow.pid), ["eof", "kill"]);
    assert.deepEqual(events(slow.pid).map((e) => e.event), ["start", "stop", "kill", "exit"]);

    const quick = await sup.spawn(call(caller(), "quick"));
    const stopped = sup.stop(quick, 60_000);
    const again = sup.stop(quick, 60_000);
    sandbox.guest({ op: "exit", pid: quick.pid, status: 0 });
    assert.deepEqual(await stopped, { status: 0 });
    assert.deepEqual(await again, { status: 0 });
    assert.deepEqual(sandbox.opsFor(quick.pid), ["eof"], "one EOF, no kill");
    assert.deepEqual(await sup.stop(quick), { status: 0 }, "stopping an ended process");
  },
);

supervisorTest(
  "kill ends a process at once for the core: its caller gets -32002 before the guest traps",
  async ({ sup, sandbox, table }) => {
    const c = caller();
    const p = await sup.spawn(call(c, "notes"));
    sup.kill(p);
    assert.equal(table.size, 0);
    assert.deepEqual(p.exit, { status: "killed" });
    assert.match((c.got[0] as { error: { message: string } }).error.message, /it was killed/);
    sup.kill(p);
    assert.deepEqual(sandbox.opsFor(p.pid), ["kill"], "a second kill sends nothing");
  },
);

supervisorTest(
  "a process that ends stops its attached children, not its detached ones",
  async ({ sup, sandbox }) => {
    const parent = await sup.spawn(call(caller(), "parent"));
    const child = await sup.spawn(call(parent, "child"));
    const detached = await sup.spawn(call(parent, "daemon", "run", { detached: true }));
    assert.deepEqual([...parent.children], [child]);
    sandbox.guest({ op: "exit", pid: parent.pid, status: 0 });
    assert.deepEqual(sandbox.opsFor(child.pid), ["eof"]);
    assert.deepEqual(sandbox.opsFor(detached.pid), []);
    sandbox.guest({ op: "exit", pid: child.pid, status: 0 });
    await child.ended;
    assert.ok(!detached.hasEnded);
  },
);

supervisorTest(
  "stopChildren stops a closed connection's processes; stopAll stops every one",
  async ({ sup, sandbox, table }) => {
    const a = caller("a");
    const [a1, a2] = [await sup.spawn(call(a, "x")), await sup.spawn(call(a, "y"))];
    const b1 = await sup.spawn(call(caller("b"), "z"));
    const stopped = sup.stopChildren(a);
    assert.deepEqual([a1, a2, b1].map((p) => sandbox.opsFor(p.pid)), [["eof"], ["eof"], []]);
    for (const p of [a1, a2]) sandbox.guest({ op: "exit", pid: p.pid, status: 0 });
    await stopped;
    await sup.stopAll(0);
    assert.deepEqual(sandbox.opsFor(b1.pid), ["eof", "kill"]);
    assert.equal(table.size, 0);
  },
);

supervisorTest(
  "a caller that ended before its call started gets no process",
  async ({ sup, table }) => {
    const c = caller("console", true);
    await assert.rejects(sup.spawn(call(c, "notes")), /console ended before its call started/);
    assert.equal(table.size, 0);
  },
);

supervisorTest("past the processes limit a call is refused with -32004 and a limit event", {
  limits: { processes: 1 },
}, async ({ sup, table, events }) => {
  await sup.spawn(call(caller(), "notes"));
  await assert.rejects(
    sup.spawn(call(caller(), "notes", "add")),
    (e) =>
      e instanceof HostError && e.code === "limit-reached" &&
      /notes\.add was not started: the world has 1 live processes/.test(e.message),
  );
  assert.equal(table.size, 1);
  assert.deepEqual(events("core"), [
    { event: "limit", limit: "processes", method: "notes.add", caller: "console", count: 1 },
  ]);
});

supervisorTest(
  "noPlugins refuses every plugin with -32001 and its message",
  { noPlugins: (method) => `a test calls no plugins (${method})` },
  async ({ sup, loaded }) => {
    await assert.rejects(
      sup.spawn(call(caller(), "notes")),
      (e) =>
        e instanceof HostError && e.code === "no-such-plugin" &&
        e.message === "a test calls no plugins (notes.run)",
    );
    assert.deepEqual(loaded, []);
  },
);

supervisorTest(
  "a native method answers under the caller's id and ends with status 0",
  {
    natives: {
      "cargo.build": (ctx) => {
        ctx.log("compiling");
        ctx.notify("progress", { done: 1 });
        return Promise.resolve({ built: ctx.params.n });
      },
    },
  },
  async ({ sup, sandbox, table, events, stderr }) => {
    const c = caller();
    const p = await sup.spawn(call(c, "cargo", "build"));
    assert.ok(p.native);
    assert.equal(table.get(p.pid), p);
    assert.deepEqual(await p.ended, { status: 0 });
    assert.deepEqual(c.got, [
      {
        jsonrpc: "2.0",
        method: "core.notify",
        params: { call: 7, name: "progress", params: { done: 1 } },
      },
      { jsonrpc: "2.0", id: 7, result: { built: 1 } },
    ]);
    assert.deepEqual(stderr(p.pid), ["compiling"]);
    assert.deepEqual(events(p.pid).map((e) => e.event), ["start", "exit"]);
    assert.deepEqual(sandbox.runs, [], "no sandbox");
    await assert.rejects(
      sup.spawn(call(c, "cargo", "clean")),
      (e) =>
        e instanceof HostError && e.code === "method-not-found" &&
        e.message === "cargo has no method clean (it has cargo.build)",
    );
  },
);

supervisorTest(
  "a native method's error is its answer; a host fault is also logged with its stack",
  {
    natives: {
      "n.refuse": () => Promise.reject(new HostError("invalid-params", "no")),
      "n.crash": () => {
        throw new Error("host fault");
      },
    },
  },
  async ({ sup, stderr }) => {
    const c = caller();
    const refused = await sup.spawn(call(c, "n", "refuse"));
    await refused.ended;
    const crashed = await sup.spawn(call(c, "n", "crash", { callerId: 8 }));
    await crashed.ended;
    assert.deepEqual(c.got.map((m) => "error" in m && [m.id, m.error?.code]), [
      [7, ErrorCode.InvalidParams],
      [8, ErrorCode.InternalError],
    ]);
    assert.deepEqual(stderr(refused.pid), []);
    assert.match(
      stderr(crashed.pid)[0],
      /^internal error: Error: host fault\n\s+at /,
    );
  },
);

/** The signal the body of `n.wait` got, and how to settle it. */
let signal: AbortSignal | undefined;
let finish = () => {};
supervisorTest(
  "killing a native method aborts its signal; what it settles with later is dropped",
  {
    natives: {
      "n.wait": (ctx) => {
        signal = ctx.signal;
        return new Promise((resolve) => finish = () => resolve({ late: true }));
      },
    },
  },
  async ({ sup }) => {
    const c = caller();
    const p = await sup.spawn(call(c, "n", "wait"));
    await turn();
    sup.kill(p);
    assert.ok(signal?.aborted);
    finish();
    await turn();
    assert.deepEqual(c.got.map((m) => "error" in m && m.error?.code), [ErrorCode.NoAnswer]);
    assert.deepEqual(p.exit, { status: "killed" });
  },
);

supervisorTest(
  "a command gets its arguments and SAUSAGE_* variables of its own, or exactly its env",
  async ({ sup, sandbox }) => {
    const output: string[] = [];
    const c = caller();
    const base = {
      name: "notes-test",
      label: "adds",
      component: { hash: "h", dir: "/cache/t", engine: "jco" as const },
      args: ["t.wasm", "--exact", "adds"],
      env: [["SAUSAGE_PID", "forged"], ["RUST_BACKTRACE", "1"]] as [string, string][],
      caller: c,
      onOutput: (_: string, line: string) => output.push(line),
    };
    const p = await sup.spawnCommand(base);
    const exact = await sup.spawnCommand({ ...base, exactEnv: true, cwd: "/state" });
    const [run, exactRun] = sandbox.runs;
    assert.equal(run.request, undefined);
    assert.deepEqual(run.args, ["t.wasm", "--exact", "adds"]);
    assert.deepEqual(run.env, [
      ["RUST_BACKTRACE", "1"],
      ["SAUSAGE_PID", p.pid],
      ["SAUSAGE_PLUGIN", "notes-test"],
      ["SAUSAGE_PARENT", "console"],
    ]);
    assert.deepEqual(exactRun.env, base.env);
    assert.equal(exactRun.cwd, "/state");
    assert.deepEqual([p.method, p.params], ["adds", { args: base.args }]);
    assert.deepEqual([...c.children], [p, exact]);
    sandbox.guest({ op: "err", pid: p.pid, line: "test adds ... ok" });
    assert.deepEqual(output, ["test adds ... ok"]);
  },
);

supervisorTest(
  "a guest's filesystem request is served by its process and answered to its sandbox",
  async ({ sup, sandbox }) => {
    const p = await sup.spawn(call(caller(), "notes"));
    const fs = (id: number, call: FsCall) =>
      sandbox.guest({ op: "fs", pid: p.pid, id, mount: "run", call });
    fs(1, { method: "mkdir", args: ["d"] });
    fs(2, { method: "readDir", args: [""] });
    await turn();
    const replies = sandbox.sent.filter((m) => m.op === "fs-reply");
    assert.deepEqual(replies.map((r) => [r.pid, r.id, r.error]), [
      [p.pid, 1, undefined],
      [p.pid, 2, undefined],
    ]);
    assert.match(JSON.stringify(replies[1].result), /"d"/);
  },
);

Deno.test("a host fault serving a guest's filesystem request is journaled and answered as a fault", async () => {
  const run = new MemMount();
  run.readDir = () => {
    throw new TypeError("a bug in /run");
  };
  const { sup, sandbox, journal, events } = setup({ run });
  try {
    const p = await sup.spawn(call(caller(), "notes"));
    sandbox.guest({
      op: "fs",
      pid: p.pid,
      id: 1,
      mount: "run",
      call: { method: "readDir", args: [""] },
    });
    await turn();
    const reply = sandbox.sent.find((m) => m.op === "fs-reply");
    assert.ok(reply?.op === "fs-reply" && reply.error === undefined);
    assert.match(reply.fault ?? "", /TypeError: a bug in \/run/);
    const fault = events(p.pid).find((e) => e.event === "host-fault");
    assert.match(fault?.error, /TypeError: a bug in \/run/);
  } finally {
    journal.close();
  }
});

supervisorTest(
  "a flood of lines is cut to the journal budget and the drop is journaled at the end",
  { limits: { log_lines_per_second: 1 } },
  async ({ sup, sandbox, events, stderr }) => {
    const p = await sup.spawn(call(caller(), "chatty"));
    for (let i = 0; i < 25; i++) sandbox.guest({ op: "err", pid: p.pid, line: `line ${i}` });
    assert.equal(stderr(p.pid).length, 10, "ten seconds' worth");
    assert.equal(p.lines.length, 26, "its own log keeps them all (and its start)");
    sandbox.guest({ op: "exit", pid: p.pid, status: 0 });
    const dropped = events(p.pid).find((e) => e.event === "dropped");
    assert.equal(dropped?.lines, 15);
  },
);

supervisorTest(
  "the core tells a sandbox each quarter of a process's output window it has handled",
  { limits: { output_window_kib: 1 } },
  async ({ sup, sandbox }) => {
    const p = await sup.spawn(call(caller(), "chatty"));
    assert.equal(sandbox.runs[0].outputWindow, 1024);
    const line = "x".repeat(99); // 100 with its newline
    for (let i = 0; i < 5; i++) sandbox.guest({ op: "out", pid: p.pid, line });
    for (let i = 0; i < 3; i++) sandbox.guest({ op: "err", pid: p.pid, line });
    assert.deepEqual(sandbox.sent.filter((m) => m.op === "took"), [
      { op: "took", pid: p.pid, count: 300 },
      { op: "took", pid: p.pid, count: 300 },
    ]);
  },
);
