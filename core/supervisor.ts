/**
 * The life of processes (section 4.6): start a process for a call, hand its
 * output to the router, stop it (EOF, grace, kill), kill it, and clean up
 * when it ends: answer -32002 if it never answered, stop its attached
 * children, tell the listeners (locks, `/self`).
 *
 * @module
 */

import { ErrorCode, RpcError, toErrorObject } from "../rpc/errors.ts";
import type { Id, JsonObject } from "../rpc/message.ts";
import type { Caller } from "./caller.ts";
import type { Compiled, ComponentCache } from "./component_cache.ts";
import type { Journal } from "./journal.ts";
import { type ExitInfo, type OutputHandler, Process } from "./process.ts";
import type { ProcessTable } from "./process_table.ts";
import type { Sandbox, SandboxPool } from "./sandbox_pool.ts";
import { uuidv7 } from "./uuid.ts";
import type { World } from "./world.ts";
import type { ExtraPreopen, FromSandbox, RunMessage } from "../sandbox/protocol.ts";
import { type NativeMethod, NativeRunner } from "./native_process.ts";
import { FsServer } from "./fs_server.ts";
import type { Mount } from "../vfs/mount.ts";
import { ProcessDir } from "../vfs/process_dir.ts";
import type { ProcSource } from "../vfs/proc_source.ts";

/** The mounts every process shares: `/proc` and `/run`, with the source of `/self`. */
export interface SharedMounts {
  proc: Mount;
  run: Mount;
  source: ProcSource;
}

/** How long `core.stop` waits after closing stdin before it kills. */
export const STOP_GRACE_MS = 5000;

/** How many of its last journal lines a -32002 error carries. */
const LAST_LINES = 20;

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
  /** Its initial current folder (default `/`). */
  cwd?: string;
  /** Host folders preopened beside `/`; the pool's sandboxes must be allowed to use them. */
  preopens?: ExtraPreopen[];
  caller: Caller;
  /** Receives its text output (also journaled). */
  onOutput?: OutputHandler;
}

/** Receives each stdout line of a process (the router). */
export type LineHandler = (p: Process, line: string) => void;

/** Starts, stops and cleans up processes. */
export class Supervisor {
  /** Called with every process that ends, after it left the table. */
  readonly onEnd: ((p: Process) => void)[] = [];
  /** Receives each stdout line; set by the host to the router. */
  onStdout: LineHandler = () => {};
  /** Native methods by `<plugin>.<method>` (`cargo.build`): they run in the host, as processes. */
  readonly natives = new Map<string, NativeMethod>();
  /**
   * When set, no call may start a plugin (a test has no other plugins): a
   * call fails with -32001 and this message for `<plugin>.<method>`.
   */
  noPlugins: ((method: string) => string) | null = null;

  constructor(
    private world: World,
    private journal: Journal,
    private table: ProcessTable,
    private pool: SandboxPool,
    private cache: ComponentCache,
    private mounts: SharedMounts,
  ) {}

  /**
   * Starts a process for a call: a native method of the host, or a fresh
   * instance of the plugin's component. Throws an `RpcError` -32001 when the
   * plugin does not exist, -32601 when a native plugin has no such method.
   */
  async spawn(req: SpawnRequest): Promise<Process> {
    if (req.wasm === undefined) {
      const method = `${req.plugin}.${req.method}`;
      if (this.noPlugins) throw new RpcError(ErrorCode.NoSuchPlugin, this.noPlugins(method));
      const native = this.natives.get(method);
      if (native) return this.spawnNative(req, native);
      const methods = [...this.natives.keys()].filter((m) => m.startsWith(`${req.plugin}.`));
      if (methods.length) {
        throw new RpcError(
          ErrorCode.MethodNotFound,
          `${req.plugin} has no method ${req.method} (it has ${methods.join(", ")})`,
        );
      }
    }
    const wasm = req.wasm ?? this.world.pluginWasm(req.plugin);
    const compiled = await this.cache.load(wasm);
    const sandbox = await this.pool.acquire();
    const p = this.create(req, sandbox);
    const pid = p.pid;
    this.attach(p, sandbox);
    this.run(p, sandbox, {
      op: "run",
      pid,
      dir: compiled.dir,
      world: this.world.root,
      env: [["SAUSAGE_PID", pid], ["SAUSAGE_PLUGIN", req.plugin], ["SAUSAGE_PARENT", p.parent]],
      request: JSON.stringify({ jsonrpc: "2.0", id: pid, method: req.method, params: req.params }),
    });
    return p;
  }

  /**
   * Starts a command ({@link CommandRequest}): stdin gets no request, its
   * text output goes to `onOutput` (and the journal), its JSON-RPC lines to
   * the router like any process's. Resolves once it runs; `p.ended` tells its exit.
   */
  async spawnCommand(req: CommandRequest): Promise<Process> {
    const sandbox = await this.pool.acquire();
    const pid = `${req.name}-${uuidv7()}`;
    const p = new Process(
      pid,
      req.name,
      req.label,
      { args: req.args },
      req.caller,
      undefined,
      false,
      sandbox,
    );
    p.onOutput = req.onOutput ?? null;
    this.attach(p, sandbox);
    const own = [["SAUSAGE_PID", pid], ["SAUSAGE_PLUGIN", req.name], [
      "SAUSAGE_PARENT",
      p.parent,
    ]] as [string, string][];
    this.run(p, sandbox, {
      op: "run",
      pid,
      dir: req.component.dir,
      world: this.world.root,
      env: [...req.env.filter(([k]) => !k.startsWith("SAUSAGE_")), ...own],
      args: req.args,
      cwd: req.cwd,
      preopens: req.preopens,
    });
    return p;
  }

  /** Makes `p` a child of its caller (unless detached); gives the sandbox back when the caller is gone. */
  private attach(p: Process, sandbox: Sandbox | null): void {
    if (p.detached) return;
    if (p.caller.gone) {
      if (sandbox) this.pool.release(sandbox);
      throw new Error(`${p.caller.name} ended before its call started`);
    }
    p.caller.children.add(p);
  }

  /** Enters a process in the table and journal and starts it in its sandbox. */
  private run(p: Process, sandbox: Sandbox, msg: RunMessage): void {
    p.fs = new FsServer({
      proc: this.mounts.proc,
      run: this.mounts.run,
      self: new ProcessDir(this.mounts.source, p.pid, true),
    });
    this.table.add(p);
    this.event(p, {
      event: "start",
      method: p.method,
      params: p.params,
      parent: p.parent,
      detached: p.detached,
    });
    sandbox.onMessage = (msg) => this.onSandbox(p, msg);
    sandbox.exited.then(() => {
      if (!p.gone) this.ended(p, { status: "killed", trap: "the sandbox died" });
    });
    sandbox.send(msg);
  }

  /** A new process `<plugin>-<uuidv7>` for a call, run by `runner`. */
  private create(req: SpawnRequest, runner: ConstructorParameters<typeof Process>[7]): Process {
    const pid = `${req.plugin}-${uuidv7()}`;
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
    const p = this.create(req, runner);
    const pid = p.pid;
    this.attach(p, null);
    this.table.add(p);
    this.event(p, {
      event: "start",
      method: req.method,
      params: req.params,
      parent: p.parent,
      detached: req.detached,
    });
    const write = (msg: Record<string, unknown>) => {
      if (!p.gone) this.onStdout(p, JSON.stringify({ jsonrpc: "2.0", ...msg }));
    };
    const ctx = {
      pid,
      params: req.params,
      signal: runner.signal,
      log: (line: string) => {
        if (!p.gone) this.log(p, "stderr", line);
      },
      notify: (name: string, params: JsonObject) =>
        write({ method: "core.notify", params: { name, params } }),
    };
    Promise.resolve().then(() => body(ctx)).then(
      (result) => {
        write({ id: pid, result: result ?? {} });
        this.ended(p, { status: 0 });
      },
      (error) => {
        if (runner.signal.aborted) return this.ended(p, { status: 1 }); // stopped: no answer
        if (!(error instanceof RpcError)) {
          this.log(p, "stderr", `internal error: ${error?.stack ?? error}`);
        }
        write({ id: pid, error: toErrorObject(error) });
        this.ended(p, { status: 0 });
      },
    );
    return p;
  }

  private onSandbox(p: Process, msg: FromSandbox): void {
    if (p.gone) return;
    switch (msg.op) {
      case "out":
        this.onStdout(p, msg.line);
        break;
      case "err":
        this.log(p, "stderr", msg.line);
        break;
      case "exit":
        this.ended(p, msg.error ? { status: msg.status, trap: msg.error } : { status: msg.status });
        break;
      case "fs":
        p.fs!.handle(msg).then((reply) => {
          if (!p.gone) p.runner.send(reply);
        });
        break;
    }
  }

  /** Writes a line of a process to the journal and to its in-memory log (and to its output handler). */
  log(p: Process, stream: "stdout" | "stderr" | "core", line: string): void {
    this.journal.append(p.pid, p.plugin, stream, line);
    p.remember(stream === "core" ? `[core] ${line}` : line);
    if (stream !== "core") p.onOutput?.(stream, line);
  }

  private event(p: Process, event: Record<string, unknown>): void {
    this.log(p, "core", JSON.stringify(event));
  }

  /** `core.stop`: closes stdin, waits the grace period, then kills. Resolves when it has ended. */
  async stop(p: Process, graceMs = STOP_GRACE_MS): Promise<ExitInfo> {
    if (p.gone) return p.exit!;
    if (p.state !== "stopping") {
      p.state = "stopping";
      this.event(p, { event: "stop" });
      p.runner.send({ op: "eof" });
      const timer = setTimeout(() => this.kill(p), graceMs);
      p.ended.then(() => clearTimeout(timer));
    }
    return await p.ended;
  }

  /** `core.kill`: ends the process at once (its sandbox is killed). */
  kill(p: Process): void {
    if (p.gone) return;
    this.event(p, { event: "kill" });
    p.runner.kill();
    this.ended(p, { status: "killed" });
  }

  private ended(p: Process, exit: ExitInfo): void {
    if (p.gone) return;
    p.markEnded(exit);
    this.table.remove(p);
    p.fs?.close();
    this.event(p, { event: "exit", ...exit });
    if (exit.status === "killed") p.runner.kill();
    else if (p.sandbox) this.pool.release(p.sandbox);
    if (!p.detached) p.caller.children.delete(p);
    if (p.callerWaits) {
      p.answered = true;
      const how = exit.status === "killed"
        ? "was killed"
        : exit.trap
        ? `trapped (${exit.trap})`
        : `exited with status ${exit.status}`;
      p.caller.deliver({
        jsonrpc: "2.0",
        id: p.callerId!,
        error: {
          code: ErrorCode.NoAnswer,
          message: `${p.pid} ended without an answer: it ${how}`,
          data: { ...exit, lines: p.lines.slice(-LAST_LINES) },
        },
      });
    }
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
