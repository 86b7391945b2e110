/**
 * One process: a run of a plugin for one call (section 4.3). Holds what
 * `/proc/<pid>/info.json` shows, the link to its caller, its children and its
 * recent journal lines. The process alone changes its state and answers its
 * caller (`respond`, `finish`); the supervisor decides when it ends.
 *
 * Also who makes a call, a {@link Caller}: a process, a client of the control
 * socket (the CLI, the console), or the core itself (boot). The two types
 * refer to each other (a caller owns the processes it started, a process
 * answers its caller), so they live in one module.
 *
 * @module
 */

import { findPanic } from "./panic_message.ts";
import type { Id, JsonObject, Message, Response } from "../../rpc/message.ts";
import { ErrorCode } from "../../rpc/errors.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import type { FsServer } from "../files/fs_server.ts";

/**
 * Anything that can make calls. Each caller gets answers and notifications
 * through `deliver`, and owns the attached processes it started.
 */
export interface Caller {
  /** What children see as `SAUSAGE_PARENT`: `console`, `core`, or a pid. */
  readonly name: string;
  /** The attached processes this caller started; they stop when it ends. */
  readonly children: Set<Process>;
  /** True once the caller has ended: its late answers and notifications are dropped. */
  readonly hasEnded: boolean;
  /** Hands a response or notification to the caller. */
  deliver(msg: Message): void;
}

/**
 * What a process runs in: a guest in a sandbox, or a native method of the
 * host. It takes stdin messages and EOF, and can be killed.
 */
export interface ProcessRunner {
  /** True for a native method of the host. */
  readonly native: boolean;
  /** Writes a message to its stdin; lost silently once it has ended. */
  input(msg: Message): void;
  /** Closes its stdin ("stop now"). */
  eof(): void;
  /** Ends it: a guest traps at its next check. */
  kill(): void;
  /** The remote worker it runs on (`core/remote/`); none on the host. */
  readonly worker?: string;
}

/** Receives a line of a process's output that is not a JSON-RPC message. */
export type OutputHandler = (stream: "stdout" | "stderr", line: string) => void;

/** The states of a process, as `ps` shows them. */
export type ProcessState = "running" | "answered" | "stopping" | "ended";

/** How a process ended. `status` is the exit status, or "killed". */
export interface ExitInfo {
  status: number | "killed";
  /** The trap message when the guest trapped (a panic, an unreachable). */
  trap?: string;
  /** The limit of `config/limits.json` that ended it (`call_timeout_ms`, `world_memory_mib`), if one did. */
  limit?: string;
  /** That limit's value. */
  value?: number;
}

/** What `ps` and `/proc/<pid>/info.json` show of a process. */
export interface ProcessInfo {
  pid: string;
  plugin: string;
  method: string;
  params: JsonObject;
  parent: string;
  detached: boolean;
  start: string;
  state: ProcessState;
  /** The remote worker it runs on; absent on the host. */
  worker?: string;
}

/** The call a process runs: what was called, by whom, and whether the caller waits. */
export interface ProcessCall {
  /** The plugin it runs (a command's name). */
  plugin: string;
  /** The method it was called for (a command's label). */
  method: string;
  /** The params of its call (a command's arguments). */
  params: JsonObject;
  /** Who gets the answer; the parent unless detached. */
  caller: Caller;
  /** The id of the caller's request; undefined when nobody waits for the answer. */
  callerId: Id | undefined;
  /** True when it is not a child of its caller (it outlives it). */
  detached: boolean;
}

/** What a process is made of: its call, its pid, and what it runs in. */
export interface ProcessOptions extends ProcessCall {
  /** `<plugin>-<uuidv7>`. */
  pid: string;
  /** What it runs in: a sandbox, or a native runner. */
  runner: ProcessRunner;
  /**
   * Makes what serves its `/proc`, `/self` and `/run` (a guest's), at its
   * first file request: most calls make none. None for a native process.
   */
  fs?: () => FsServer;
  /** Also receives its text output, beside the journal (a command such as a test). */
  onOutput?: OutputHandler;
}

/**
 * The words in an exit's trap that say its guest never started (a worker
 * that could not start it, a run message that never left): -32002's `data`
 * says `outcome: "not-started"` then, else `"unknown"` (it may have run).
 */
export const NEVER_STARTED = "it never started";

/** How many journal lines a process keeps in memory (for -32002 and `/proc/<pid>/log`). */
const KEEP_LINES = 1000;

/** How many of its last journal lines a -32002 error carries. */
const LAST_LINES = 20;

/** A running process. */
export class Process implements Caller {
  /** Attached processes started by this one. */
  readonly children = new Set<Process>();
  /** Its journal lines so far, up to twice `KEEP_LINES` (trimmed in bulk: `lines` reads). */
  private kept: string[] = [];
  /** The current state; only the process changes it. */
  private current: ProcessState = "running";
  /** Set once the process has answered its call (or its caller cancelled it). */
  private answered = false;
  /** Set when its caller cancelled the call (`core.cancel`). */
  private cancelled = false;
  /** The start time, ms since the epoch. */
  readonly startTime = Date.now();
  /** Resolves with its exit when it has ended. */
  readonly ended: Promise<ExitInfo>;
  /** How it ended; null while it runs. */
  private exitInfo: ExitInfo | null = null;
  /** The files it wrote to its `/self` (made at the first look): they go away with it. */
  private selfFiles: MemMount | null = null;
  /** `<plugin>-<uuidv7>`. */
  readonly pid: string;
  /** The plugin it runs (a command's name). */
  readonly plugin: string;
  /** The method it was called for (a command's label). */
  readonly method: string;
  /** The params of its call (a command's arguments). */
  readonly params: JsonObject;
  /** Who gets the answer; the parent unless detached. */
  readonly caller: Caller;
  /** The id of the caller's request; undefined when nobody waits for the answer. */
  readonly callerId: Id | undefined;
  /** True when it is not a child of its caller (it outlives it). */
  readonly detached: boolean;
  /** What it runs in: a sandbox, or a native runner. */
  readonly runner: ProcessRunner;
  /** Makes its file server; null for a native process. */
  private readonly makeFs: (() => FsServer) | null;
  /** Its file server, once made. */
  private fsServer: FsServer | null = null;
  /**
   * Also receives its text output (stdout lines that are not JSON-RPC, and
   * stderr lines), beside the journal: given for commands such as a test.
   */
  readonly onOutput: OutputHandler | null;
  private resolveEnded!: (e: ExitInfo) => void;

  constructor(opts: ProcessOptions) {
    this.pid = opts.pid;
    this.plugin = opts.plugin;
    this.method = opts.method;
    this.params = opts.params;
    this.caller = opts.caller;
    this.callerId = opts.callerId;
    this.detached = opts.detached;
    this.runner = opts.runner;
    this.makeFs = opts.fs ?? null;
    this.onOutput = opts.onOutput ?? null;
    this.ended = new Promise((r) => (this.resolveEnded = r));
  }

  /** The files it wrote to its `/self`; they go away with it. */
  get self(): MemMount {
    return this.selfFiles ??= new MemMount();
  }

  /** Serves its `/proc`, `/self` and `/run` (made now if it was not yet); null for a native process. */
  get fs(): FsServer | null {
    if (this.fsServer === null && this.makeFs !== null) this.fsServer = this.makeFs();
    return this.fsServer;
  }

  /** Closes the handles its file server holds, if it made one (it ended). */
  closeFiles(): void {
    this.fsServer?.close();
  }

  /** How it ended; null while it runs. */
  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  /** The current state, as `ps` shows it. */
  get state(): ProcessState {
    return this.current;
  }

  /** Marks it as being stopped (`core.stop`); false when it already was. */
  stopping(): boolean {
    if (this.current === "stopping") return false;
    this.current = "stopping";
    return true;
  }

  /** True for a native method of the host (no sandbox). */
  get native(): boolean {
    return this.runner.native;
  }

  /** `console`, `core`, or the pid of the parent. */
  get parent(): string {
    return this.detached ? "core" : this.caller.name;
  }

  /** As a caller, a process is named by its pid. */
  get name(): string {
    return this.pid;
  }

  /** True once it has ended. */
  get hasEnded(): boolean {
    return this.exitInfo !== null;
  }

  /** True once it has answered its call (or its caller was told it will not). */
  get hasAnswered(): boolean {
    return this.answered;
  }

  /** True while its caller still waits for the answer (notifications are forwarded). */
  get callerWaits(): boolean {
    return !this.answered && this.callerId !== undefined && !this.caller.hasEnded;
  }

  /** Writes a message to its stdin. */
  deliver(msg: Message): void {
    if (!this.hasEnded) this.runner.input(msg);
  }

  /**
   * Takes the process's response to its call and hands it to the caller
   * under the caller's id. Returns why it was dropped instead (not its
   * call's id, or a second answer), or null.
   */
  respond(msg: Response): string | null {
    if (msg.id !== this.pid) return "a response to an unknown id was dropped";
    if (this.cancelled) return "an answer after its caller cancelled the call was dropped";
    if (this.answered) return "a second answer was dropped";
    this.answered = true;
    if (this.current === "running") this.current = "answered";
    if (this.callerId === undefined || this.caller.hasEnded) return null;
    this.caller.deliver(
      msg.error
        ? { jsonrpc: "2.0", id: this.callerId, error: msg.error }
        : { jsonrpc: "2.0", id: this.callerId, result: msg.result },
    );
    return null;
  }

  /**
   * Its caller cancelled the call (`core.cancel`): the caller gets -32005 at
   * once, and a later answer of the process is dropped. False when the caller
   * no longer waits (answered, or nobody waits).
   */
  cancel(): boolean {
    if (!this.callerWaits) return false;
    this.answered = true;
    this.cancelled = true;
    this.caller.deliver({
      jsonrpc: "2.0",
      id: this.callerId!,
      error: {
        code: ErrorCode.Cancelled,
        message: `the call was cancelled by its caller: ${this.pid} is being stopped`,
        data: { pid: this.pid },
      },
    });
    return true;
  }

  /** `core.notify` from the process: forwarded to its caller while the call runs, else dropped. */
  notifyCaller(name: unknown, params: unknown): void {
    if (!this.callerWaits) return;
    this.caller.deliver({
      jsonrpc: "2.0",
      method: "core.notify",
      params: { call: this.callerId!, name, params: params ?? {} } as JsonObject,
    });
  }

  /** Its newest `KEEP_LINES` journal lines (for -32002 and `/proc/<pid>/log`). */
  get lines(): string[] {
    return this.kept.length > KEEP_LINES ? this.kept.slice(-KEEP_LINES) : this.kept;
  }

  /**
   * Keeps a journal line in memory. A flood trims the oldest half at once,
   * not one line per line (a splice moves every line kept).
   */
  remember(line: string): void {
    this.kept.push(line);
    if (this.kept.length >= 2 * KEEP_LINES) this.kept = this.kept.slice(-KEEP_LINES);
  }

  /**
   * Marks it ended (called once, by the supervisor); a caller still waiting
   * gets -32002 with the exit and the last journal lines.
   */
  finish(exit: ExitInfo): void {
    this.exitInfo = exit;
    this.current = "ended";
    this.resolveEnded(exit);
    if (!this.callerWaits) return;
    this.answered = true;
    const how = exit.status === "killed"
      ? exit.trap ? `was killed (${exit.trap})` : "was killed"
      : exit.trap
      ? `trapped (${exit.trap})`
      : `exited with status ${exit.status}`;
    // A Rust panic: its message is the error's message (the author's own words).
    const panic = exit.trap ? findPanic(this.lines) : null;
    this.caller.deliver({
      jsonrpc: "2.0",
      id: this.callerId!,
      error: {
        // A memory bound refused it (PROTOCOL 4.9): a limit, as a refused start is.
        code: exit.limit === "world_memory_mib" || exit.limit === "memory_mib"
          ? ErrorCode.LimitReached
          : ErrorCode.NoAnswer,
        message: panic
          ? `${panic.message} (${this.pid} panicked at ${panic.at}, and ended without an answer)`
          : `${this.pid} ended without an answer: it ${how}`,
        // Whether it may have run (PROTOCOL 4.8): a retry is safe only when it never started.
        data: {
          ...exit,
          lines: this.lines.slice(-LAST_LINES),
          outcome: exit.trap?.includes(NEVER_STARTED) ? "not-started" : "unknown",
        },
      },
    });
  }

  /** What `ps` shows. */
  info(): ProcessInfo {
    return {
      pid: this.pid,
      plugin: this.plugin,
      method: this.method,
      params: this.params,
      parent: this.parent,
      detached: this.detached,
      start: new Date(this.startTime).toISOString(),
      state: this.state,
      ...(this.runner.worker ? { worker: this.runner.worker } : {}),
    };
  }
}
