/**
 * The life of processes (section 4.6): start a process for a call, hand its
 * output to the router, stop it (EOF, grace, kill), kill it, and clean up
 * when it ends: answer -32002 if it never answered, stop its attached
 * children, tell the listeners (locks, `/self`).
 *
 * @module
 */

import { eventText, parseEvent } from "./log_event.ts";
import { HostError, RpcError, toErrorObject } from "../rpc/errors.ts";
import type { Id, JsonObject, Message } from "../rpc/message.ts";
import type { Compiled, ComponentCache, Engine } from "./component_cache.ts";
import type { Journal } from "./journal.ts";
import { JournalBudget } from "./journal_budget.ts";
import {
  type Caller,
  type ExitInfo,
  type OutputHandler,
  Process,
  type ProcessRunner,
} from "./process.ts";
import type { ProcessTable } from "./process_table.ts";
import type { Sandbox } from "./sandbox.ts";
import { uuidv7 } from "./uuid.ts";
import { agentTokenEnv } from "./agent_token.ts";
import type { World } from "./world.ts";
import type { ExtraPreopen, ProcessMessage, RunMessage } from "../sandbox/protocol.ts";
import { defaultLimits, type Limits } from "./limits.ts";
import { FailingPlugins } from "./failing_plugins.ts";
import { WORLD_MEMORY_TRAP } from "../sandbox/memory_share.ts";
import { type NativeMethod, NativeRunner } from "./native_process.ts";
import { FsServer } from "./fs_server.ts";
import type { Mount } from "../vfs/mount.ts";
import { ProcessDir } from "../vfs/process_dir.ts";
import { DiskMount } from "../vfs/disk_mount.ts";
import type { ProcSource } from "../vfs/proc_source.ts";
import { tookEvery } from "../sandbox/output_window.ts";

/**
 * The mounts every process shares: `/proc` and `/run`, with the source of
 * `/self`; and the world on disk, where the core makes the symlinks of guests.
 */
export interface SharedMounts {
  proc: Mount;
  run: Mount;
  source: ProcSource;
  world: Mount;
}

/** How long `core.stop` waits after closing stdin before it kills. */
export const STOP_GRACE_MS = 5000;

/** A guest in a sandbox, as its process sees it. */
class GuestRunner implements ProcessRunner {
  readonly native = false;
  constructor(readonly sandbox: GuestSandbox, readonly pid: string) {}
  get worker(): string | undefined {
    return this.sandbox.worker;
  }
  input(msg: Message): void {
    this.sandbox.send({ op: "in", pid: this.pid, line: JSON.stringify(msg) });
  }
  eof(): void {
    this.sandbox.send({ op: "eof", pid: this.pid });
  }
  kill(): void {
    this.sandbox.send({ op: "kill", pid: this.pid });
  }
}

/** What to start. */
export interface SpawnRequest {
  plugin: string;
  method: string;
  params: JsonObject;
  caller: Caller;
  /** The caller's request id; undefined when nobody waits for the answer. */
  callerId: Id | undefined;
  detached: boolean;
  /** Run this component file instead of the plugin's current `plugin.wasm` (activation checks). */
  wasm?: string;
  /** The caller's time limit for the answer, in ms (`timeout_ms` of `core.call`); default `call_timeout_ms`. */
  timeoutMs?: number;
}

/**
 * What to start as a command: a component run like a program, with
 * arguments and no request (a test binary under the test runner). It is
 * an attached child of `caller`, and nobody waits for an answer.
 */
export interface CommandRequest {
  /** The `plugin` of its `info.json`, and the prefix of its pid. */
  name: string;
  /** What its `info.json` shows as the method (the test it runs). */
  label: string;
  /** The transpiled component. */
  component: Compiled;
  /** Its arguments, the program name first (what `wasi:cli/environment.get-arguments` returns). */
  args: string[];
  /** Its environment; `SAUSAGE_PID`, `SAUSAGE_PLUGIN` and `SAUSAGE_PARENT` are added. */
  env: [string, string][];
  /** Exactly `env`: no `SAUSAGE_*` variables added (a conformance case that counts them). */
  exactEnv?: boolean;
  /** Its initial current folder (default `/`). */
  cwd?: string;
  /** Host folders preopened beside `/`; the pool's sandboxes must be allowed to use them. */
  preopens?: ExtraPreopen[];
  /** Exactly `preopens`: no `/`, `/proc`, `/self` or `/run` (a wasi-testsuite case's folders). */
  onlyPreopens?: boolean;
  caller: Caller;
  /** Receives its text output (also journaled). */
  onOutput?: OutputHandler;
}

/** Receives each stdout line of a process (the router). */
export type LineHandler = (p: Process, line: string) => void;

/** The part of a run message the supervisor fills in for every guest. */
type GuestRun = Omit<RunMessage, "op" | "pid" | "world" | "memoryLimit" | "maxLine">;

/** What the supervisor uses of a sandbox: it starts guests there and sends them messages. */
export type GuestSandbox = Pick<Sandbox, "start" | "send"> & {
  /** The remote worker it is, if any (`core/remote/`). */
  readonly worker?: string;
};

/** Where new guests go: the sandbox pool, or workers (`core/remote/placement.ts`). */
export interface GuestPlacer {
  /** A sandbox for one more guest, of `plugin` (none: a command). */
  place(plugin?: string): Promise<GuestSandbox>;
}

/** Starts, stops and cleans up processes. */
export class Supervisor {
  /** Called with every process that ends, after it left the table. */
  readonly onEnd: ((p: Process) => void)[] = [];
  /** Receives each stdout line; set by the host to the router. */
  onStdout: LineHandler = () => {};
  /** Native methods by `<plugin>.<method>` (`cargo.build`): they run in the host, as processes. */
  readonly natives = new Map<string, NativeMethod>();
  /**
   * Calls being started (loading, placing), by request id, per caller (keyed
   * by its `children`, which `core.call`'s relay shares): `core.cancel` waits.
   */
  private starting = new Map<Set<Process>, Map<Id, Promise<Process>>>();
  /**
   * When set, no call may start a plugin (a test has no other plugins): a
   * call fails with -32001 and this message for `<plugin>.<method>`.
   */
  noPlugins: ((method: string) => string) | null = null;
  /** What each process may still add to the journal. */
  private budgets = new WeakMap<Process, JournalBudget>();
  /** Each process's output the core handled and has not yet told its sandbox of (`took`). */
  private untold = new WeakMap<Process, number>();
  /** Plugins whose calls all end without an answer (`failing_calls`). */
  readonly failing: FailingPlugins;
  /** The processes of calls to plugins: how they end counts for `failing`. */
  private calls = new WeakSet<Process>();

  constructor(
    // The parts of each collaborator it uses: the host passes the real
    // ones, unit tests fakes.
    private world: Pick<World, "root" | "pluginWasm">,
    private journal: Pick<Journal, "append" | "coreEvent" | "coalescedEvent">,
    private table: ProcessTable,
    private pool: GuestPlacer,
    private cache: Pick<ComponentCache, "load">,
    private mounts: SharedMounts,
    /** The world's limits: live processes and memory per process. */
    readonly limits: Limits = defaultLimits(),
  ) {
    this.failing = new FailingPlugins(
      limits.failing_calls,
      limits.failing_hold_ms,
      (event, fields) => this.journal.coreEvent(event, fields),
    );
  }

  /**
   * The time limit of a call (PROTOCOL 4.9): `timeout_ms` of `core.call`, or
   * `call_timeout_ms`; throws -32602 past `call_timeout_max_ms`.
   */
  timeLimit(asked: number | undefined): number {
    if (asked === undefined) {
      return Math.min(this.limits.call_timeout_ms, this.limits.call_timeout_max_ms);
    }
    const max = this.limits.call_timeout_max_ms;
    if (!Number.isInteger(asked) || asked < 1 || asked > max) {
      throw new HostError(
        "invalid-params",
        `"timeout_ms" must be an integer from 1 to ${max} ("call_timeout_max_ms" in config/limits.json)`,
      );
    }
    return asked;
  }

  /** Ends `p` when it has not answered its call within `ms`: its caller gets -32002 saying so. */
  private limitTime(p: Process, ms: number): void {
    const timer = setTimeout(() => {
      if (p.hasEnded || p.hasAnswered) return;
      this.journal.coreEvent("limit", { limit: "call_timeout_ms", value: ms, pid: p.pid });
      this.event(p, { event: "kill" });
      p.runner.kill();
      this.ended(p, {
        status: "killed",
        trap: `time limit: no answer within ${ms} ms ("call_timeout_ms" in config/limits.json, ` +
          `or "timeout_ms" of core.call)`,
        limit: "call_timeout_ms",
        value: ms,
      });
    }, ms);
    p.ended.then(() => clearTimeout(timer));
  }

  /** Refuses a new process when the world has as many as its limit allows. */
  private checkProcessLimit(method: string, caller: Caller): void {
    if (this.table.size < this.limits.processes) return;
    const message = `${method} was not started: the world has ${this.table.size} live processes, ` +
      `its limit ("processes" in config/limits.json)`;
    // A process bomb's refusals: one entry per window with their count.
    const fields = { limit: "processes", method, caller: caller.name };
    this.journal.coalescedEvent("limit", "limit:processes", fields);
    throw new HostError("limit-reached", message, {
      limit: "processes",
      value: this.limits.processes,
    });
  }

  /** Refuses a call of a plugin held back for failing every call (`failing_hold_ms`). */
  private checkFailing(req: SpawnRequest): void {
    try {
      this.failing.check(req.plugin, `${req.plugin}.${req.method}`);
    } catch (e) {
      this.journal.coreEvent("limit", {
        limit: "failing_calls",
        method: `${req.plugin}.${req.method}`,
        caller: req.caller.name,
      });
      throw e;
    }
  }

  /**
   * Starts a process for a call: a native method of the host, or a fresh
   * instance of the plugin's component. Throws a `HostError` (-32001) when the
   * plugin does not exist, -32601 when a native plugin has no such method.
   */
  spawn(req: SpawnRequest): Promise<Process> {
    const id = req.callerId;
    if (id === undefined) return this.spawnNow(req);
    const started = this.spawnNow(req);
    const key = req.caller.children;
    let calls = this.starting.get(key);
    if (!calls) this.starting.set(key, calls = new Map());
    calls.set(id, started);
    const done = () => {
      calls.delete(id);
      if (calls.size === 0) this.starting.delete(key);
    };
    started.then(done, done);
    return started;
  }

  /**
   * `caller`'s call `id` while its process is still being started (a promise
   * that settles once it runs or fails), else undefined.
   */
  startingCall(caller: Caller, id: Id): Promise<Process> | undefined {
    return this.starting.get(caller.children)?.get(id);
  }

  /**
   * The process of `caller`'s call `id` (the id of its request) while it
   * runs; undefined when there is none (answered, ended, not started yet, or
   * a core method). Synchronous, so that a caller's messages take effect in
   * the order it wrote them.
   */
  runningCall(caller: Caller, id: Id): Process | undefined {
    for (const c of caller.children) if (c.callerId === id && !c.hasEnded) return c;
    return undefined;
  }

  private async spawnNow(req: SpawnRequest): Promise<Process> {
    if (req.wasm === undefined) {
      const method = `${req.plugin}.${req.method}`;
      if (this.noPlugins) throw new HostError("no-such-plugin", this.noPlugins(method));
      const native = this.natives.get(method);
      if (native) return this.spawnNative(req, native);
      const methods = [...this.natives.keys()].filter((m) => m.startsWith(`${req.plugin}.`));
      if (methods.length) {
        throw new HostError(
          "method-not-found",
          `${req.plugin} has no method ${req.method} (it has ${methods.join(", ")})`,
        );
      }
    }
    this.checkProcessLimit(`${req.plugin}.${req.method}`, req.caller);
    if (req.wasm === undefined) this.checkFailing(req);
    const timeLimit = this.timeLimit(req.timeoutMs);
    const wasm = req.wasm ?? this.world.pluginWasm(req.plugin);
    const compiled = await this.cache.load(wasm);
    const sandbox = await this.pool.place(req.plugin);
    this.checkProcessLimit(`${req.plugin}.${req.method}`, req.caller);
    const pid = `${req.plugin}-${uuidv7()}`;
    const p = this.create(pid, req, new GuestRunner(sandbox, pid));
    this.attach(p);
    this.run(p, sandbox, {
      dir: compiled.dir,
      env: [
        ["SAUSAGE_PID", pid],
        ["SAUSAGE_PLUGIN", req.plugin],
        ["SAUSAGE_PARENT", p.parent],
        ...agentTokenEnv(this.world.root, req.plugin),
      ],
      request: JSON.stringify({ jsonrpc: "2.0", id: pid, method: req.method, params: req.params }),
    }, compiled.engine);
    if (req.wasm === undefined) this.calls.add(p);
    // Only a call someone waits for has a time limit: a server answers, then lives on.
    if (req.callerId !== undefined) this.limitTime(p, timeLimit);
    return p;
  }

  /**
   * Starts a command ({@link CommandRequest}): stdin gets no request, its
   * text output goes to `onOutput` (and the journal), its JSON-RPC lines to
   * the router like any process's. Resolves once it runs; `p.ended` tells its exit.
   */
  async spawnCommand(req: CommandRequest): Promise<Process> {
    this.checkProcessLimit(`${req.name}.${req.label}`, req.caller);
    const sandbox = await this.pool.place();
    const pid = `${req.name}-${uuidv7()}`;
    const p = new Process(
      pid,
      req.name,
      req.label,
      { args: req.args },
      req.caller,
      undefined,
      false,
      new GuestRunner(sandbox, pid),
    );
    p.onOutput = req.onOutput ?? null;
    this.attach(p);
    const own = [["SAUSAGE_PID", pid], ["SAUSAGE_PLUGIN", req.name], [
      "SAUSAGE_PARENT",
      p.parent,
    ]] as [string, string][];
    this.run(p, sandbox, {
      dir: req.component.dir,
      env: req.exactEnv ? req.env : [...req.env.filter(([k]) => !k.startsWith("SAUSAGE_")), ...own],
      args: req.args,
      cwd: req.cwd,
      preopens: req.preopens,
      onlyPreopens: req.onlyPreopens,
    }, req.component.engine);
    return p;
  }

  /** Makes `p` a child of its caller (unless detached). */
  private attach(p: Process): void {
    if (p.detached) return;
    if (p.caller.hasEnded) throw new Error(`${p.caller.name} ended before its call started`);
    p.caller.children.add(p);
  }

  /** Enters a process in the table and journal and starts it in its sandbox. */
  private run(p: Process, sandbox: GuestSandbox, run: GuestRun, engine: Engine): void {
    const preopens = Object.fromEntries(
      (run.preopens ?? []).map((o) => [`preopen:${o.guestPath}`, new DiskMount(o.hostPath)]),
    );
    p.fs = new FsServer({
      proc: this.mounts.proc,
      run: this.mounts.run,
      self: new ProcessDir(this.mounts.source, p.pid, true),
      world: this.mounts.world,
      ...preopens,
    }, (fault) => this.event(p, { event: "host-fault", error: fault.message }));
    this.enter(p, engine);
    sandbox.start(
      {
        ...run,
        op: "run",
        pid: p.pid,
        world: this.world.root,
        memoryLimit: this.limits.memory_mib * 2 ** 20,
        maxLine: this.limits.line_mib * 2 ** 20,
        outputWindow: this.limits.output_window_kib * 1024,
      },
      (msg) => this.onGuest(p, sandbox, msg),
    );
  }

  /** Enters a process in the table and the journal (`engine`: which engine runs a guest). */
  private enter(p: Process, engine?: Engine): void {
    this.table.add(p);
    this.event(p, {
      event: "start",
      method: p.method,
      params: p.params,
      parent: p.parent,
      detached: p.detached,
      ...(engine ? { engine } : {}),
      ...(p.runner.worker ? { worker: p.runner.worker } : {}),
    });
  }

  /** A new process for a call, run by `runner`. */
  private create(pid: string, req: SpawnRequest, runner: ProcessRunner): Process {
    return new Process(
      pid,
      req.plugin,
      req.method,
      req.params,
      req.caller,
      req.callerId,
      req.detached,
      runner,
    );
  }

  /**
   * Starts a native process: its body runs in the host; its result or error
   * becomes its response line, its notifications `core.notify` lines, so the
   * router forwards them as for any process. It ends when the body settles
   * (status 0 once answered), or at once when killed.
   */
  private spawnNative(req: SpawnRequest, body: NativeMethod): Process {
    const runner = new NativeRunner();
    const pid = `${req.plugin}-${uuidv7()}`;
    const p = this.create(pid, req, runner);
    this.attach(p);
    this.enter(p);
    const ctx = {
      pid,
      params: req.params,
      signal: runner.signal,
      log: (line: string) => {
        if (!p.hasEnded) this.log(p, "stderr", line);
      },
      notify: (name: string, params: JsonObject) => {
        if (!p.hasEnded) p.notifyCaller(name, params);
      },
    };
    const answer = (outcome: { result: unknown } | { error: unknown }) => {
      if (p.hasEnded) return;
      p.respond(
        "result" in outcome
          ? { jsonrpc: "2.0", id: pid, result: outcome.result ?? {} }
          : { jsonrpc: "2.0", id: pid, error: toErrorObject(outcome.error) },
      );
      this.ended(p, { status: 0 });
    };
    Promise.resolve().then(() => body(ctx)).then(
      (result) => answer({ result }),
      (error) => {
        if (runner.signal.aborted) return this.ended(p, { status: 1 }); // stopped: no answer
        const expected = error instanceof RpcError ||
          error instanceof HostError && error.code !== "host-fault";
        if (!expected) {
          this.log(p, "stderr", `internal error: ${error?.stack ?? error}`);
        }
        answer({ error });
      },
    );
    return p;
  }

  private onGuest(p: Process, sandbox: GuestSandbox, msg: ProcessMessage): void {
    if (p.hasEnded) return;
    switch (msg.op) {
      case "out":
        this.onStdout(p, msg.line);
        this.took(p, sandbox, msg.line);
        break;
      case "err":
        this.log(p, "stderr", msg.line);
        this.took(p, sandbox, msg.line);
        break;
      case "exit":
        if (msg.error?.startsWith(WORLD_MEMORY_TRAP)) {
          // A grow refused for the world's memory bound: the call gets -32004 (PROTOCOL 4.9).
          const value = this.limits.world_memory_mib;
          this.journal.coreEvent("limit", { limit: "world_memory_mib", value, pid: p.pid });
          this.ended(p, { status: msg.status, trap: msg.error, limit: "world_memory_mib", value });
        } else {
          this.ended(
            p,
            msg.error ? { status: msg.status, trap: msg.error } : { status: msg.status },
          );
        }
        break;
      case "fs":
        p.fs!.handle(msg).then((reply) => {
          if (!p.hasEnded) sandbox.send(reply);
        });
        break;
    }
  }

  /**
   * Writes a line of a process to the journal (within its budget: see
   * `journal_budget.ts`) and to its in-memory log (and to its output handler).
   */
  log(p: Process, stream: "stdout" | "stderr" | "core", line: string): void {
    // A structured event (core/log_event.ts): journaled as columns, shown as text.
    const event = stream === "stderr" ? parseEvent(line) : null;
    if (event) line = eventText(event);
    if (stream === "core" || this.budget(p).take()) {
      if (stream !== "core") this.reportDropped(p, false);
      this.journal.append(p.pid, p.plugin, stream, line, event ?? undefined);
    }
    p.remember(stream === "core" ? `[core] ${line}` : line);
    if (stream !== "core") p.onOutput?.(stream, line);
  }

  private budget(p: Process): JournalBudget {
    let b = this.budgets.get(p);
    if (!b) this.budgets.set(p, b = new JournalBudget(this.limits.log_lines_per_second));
    return b;
  }

  /**
   * Counts a line of `p` the core has handled; every quarter of its output
   * window, tells its sandbox (`output_window.ts`), whose writes wait past it.
   */
  private took(p: Process, sandbox: GuestSandbox, line: string): void {
    const count = (this.untold.get(p) ?? 0) + line.length + 1;
    if (count < tookEvery(this.limits.output_window_kib * 1024)) {
      this.untold.set(p, count);
      return;
    }
    this.untold.set(p, 0);
    sandbox.send({ op: "took", pid: p.pid, count });
  }

  /** Journals how many lines of `p` were dropped, if any were (see {@link JournalBudget.report}). */
  private reportDropped(p: Process, final: boolean): void {
    const event = this.budgets.get(p)?.report(final);
    if (event) this.journal.append(p.pid, p.plugin, "core", JSON.stringify(event));
  }

  private event(p: Process, event: Record<string, unknown>): void {
    this.log(p, "core", JSON.stringify(event));
  }

  /** `core.stop`: closes stdin, waits the grace period, then kills. Resolves when it has ended. */
  async stop(p: Process, graceMs = STOP_GRACE_MS): Promise<ExitInfo> {
    if (p.hasEnded) return p.exit!;
    if (p.stopping()) {
      this.event(p, { event: "stop" });
      p.runner.eof();
      const timer = setTimeout(() => this.kill(p), graceMs);
      p.ended.then(() => clearTimeout(timer));
    }
    return await p.ended;
  }

  /**
   * `core.kill`: ends the process now for the core (its caller gets -32002
   * at once); a guest traps at its next check, its sandbox and the other
   * processes there go on.
   */
  kill(p: Process): void {
    if (p.hasEnded) return;
    this.event(p, { event: "kill" });
    p.runner.kill();
    this.ended(p, { status: "killed" });
  }

  private ended(p: Process, exit: ExitInfo): void {
    if (p.hasEnded) return;
    this.table.remove(p);
    p.fs?.close();
    this.reportDropped(p, true);
    this.event(p, { event: "exit", ...exit });
    if (this.calls.has(p)) {
      this.failing.ended(p.plugin, p.hasAnswered, exitText(exit));
    }
    if (!p.detached) p.caller.children.delete(p);
    p.finish(exit);
    for (const child of [...p.children]) this.stop(child);
    for (const f of this.onEnd) f(p);
  }

  /** Stops every attached child of a caller that ended (a closed connection). */
  stopChildren(caller: Caller): Promise<unknown> {
    return Promise.all([...caller.children].map((c) => this.stop(c)));
  }

  /** Stops every running process (host shutdown). */
  stopAll(graceMs = STOP_GRACE_MS): Promise<unknown> {
    return Promise.all(this.table.all().map((p) => this.stop(p, graceMs)));
  }
}

/** How a process ended, in a few words (for the `failing` event). */
function exitText(exit: ExitInfo): string {
  if (exit.trap) {
    return exit.status === "killed" ? `killed (${exit.trap})` : `trapped (${exit.trap})`;
  }
  return exit.status === "killed" ? "killed" : `exit status ${exit.status}`;
}
