/**
 * The life of processes (section 4.6): start a process for a call, hand its
 * output to the router, stop it (EOF, grace, kill), kill it, and clean up
 * when it ends: answer -32002 if it never answered, stop its attached
 * children, tell the listeners (locks, `/self`).
 *
 * @module
 */

import { ErrorCode } from "../rpc/errors.ts";
import type { Id, JsonObject } from "../rpc/message.ts";
import type { Caller } from "./caller.ts";
import type { ComponentCache } from "./component_cache.ts";
import type { Journal } from "./journal.ts";
import { type ExitInfo, Process } from "./process.ts";
import type { ProcessTable } from "./process_table.ts";
import type { SandboxPool } from "./sandbox_pool.ts";
import { uuidv7 } from "./uuid.ts";
import type { World } from "./world.ts";
import type { FromSandbox } from "../sandbox/protocol.ts";
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

/** Receives each stdout line of a process (the router). */
export type LineHandler = (p: Process, line: string) => void;

/** Starts, stops and cleans up processes. */
export class Supervisor {
  /** Called with every process that ends, after it left the table. */
  readonly onEnd: ((p: Process) => void)[] = [];
  /** Receives each stdout line; set by the host to the router. */
  onStdout: LineHandler = () => {};

  constructor(
    private world: World,
    private journal: Journal,
    private table: ProcessTable,
    private pool: SandboxPool,
    private cache: ComponentCache,
    private mounts: SharedMounts,
  ) {}

  /** Starts a process for a call. Throws an `RpcError` -32001 when the plugin does not exist. */
  async spawn(req: SpawnRequest): Promise<Process> {
    const wasm = req.wasm ?? this.world.pluginWasm(req.plugin);
    const compiled = await this.cache.load(wasm);
    const sandbox = await this.pool.acquire();
    const pid = `${req.plugin}-${uuidv7()}`;
    const p = new Process(pid, req.plugin, req.method, req.params, req.caller, req.callerId, req.detached, sandbox);
    if (!req.detached) {
      if (req.caller.gone) {
        this.pool.release(sandbox);
        throw new Error(`${req.caller.name} ended before its call started`);
      }
      req.caller.children.add(p);
    }
    p.fs = new FsServer({
      proc: this.mounts.proc,
      run: this.mounts.run,
      self: new ProcessDir(this.mounts.source, pid, true),
    });
    this.table.add(p);
    this.event(p, { event: "start", method: req.method, params: req.params, parent: p.parent, detached: req.detached });
    sandbox.onMessage = (msg) => this.onSandbox(p, msg);
    sandbox.exited.then(() => {
      if (!p.gone) this.ended(p, { status: "killed", trap: "the sandbox died" });
    });
    sandbox.send({
      op: "run",
      pid,
      dir: compiled.dir,
      world: this.world.root,
      env: [["SAUSAGE_PID", pid], ["SAUSAGE_PLUGIN", req.plugin], ["SAUSAGE_PARENT", p.parent]],
      request: JSON.stringify({ jsonrpc: "2.0", id: pid, method: req.method, params: req.params }),
    });
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
          if (!p.gone) p.sandbox.send(reply);
        });
        break;
    }
  }

  /** Writes a line of a process to the journal and to its in-memory log. */
  log(p: Process, stream: "stdout" | "stderr" | "core", line: string): void {
    this.journal.append(p.pid, p.plugin, stream, line);
    p.remember(stream === "core" ? `[core] ${line}` : line);
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
      p.sandbox.send({ op: "eof" });
      const timer = setTimeout(() => this.kill(p), graceMs);
      p.ended.then(() => clearTimeout(timer));
    }
    return await p.ended;
  }

  /** `core.kill`: ends the process at once (its sandbox is killed). */
  kill(p: Process): void {
    if (p.gone) return;
    this.event(p, { event: "kill" });
    p.sandbox.kill();
    this.ended(p, { status: "killed" });
  }

  private ended(p: Process, exit: ExitInfo): void {
    if (p.gone) return;
    p.markEnded(exit);
    this.table.remove(p);
    p.fs?.close();
    this.event(p, { event: "exit", ...exit });
    if (exit.status === "killed") p.sandbox.kill();
    else this.pool.release(p.sandbox);
    if (!p.detached) p.caller.children.delete(p);
    if (p.callerWaits) {
      p.answered = true;
      const how = exit.status === "killed" ? "was killed" : exit.trap ? `trapped (${exit.trap})` : `exited with status ${exit.status}`;
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
