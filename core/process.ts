/**
 * One process: a run of a plugin for one call (section 4.3). Holds what
 * `/proc/<pid>/info.json` shows, the link to its caller, its children and its
 * recent journal lines; the supervisor drives its transitions.
 *
 * @module
 */

import type { Id, JsonObject, Message } from "../rpc/message.ts";
import type { Caller } from "./caller.ts";
import type { Sandbox } from "./sandbox_pool.ts";
import { MemMount } from "../vfs/mem_mount.ts";
import type { FsServer } from "./fs_server.ts";
import { NativeRunner } from "./native_process.ts";
import type { ToSandbox } from "../sandbox/protocol.ts";

/**
 * What a process runs in: a sandbox subprocess, or a {@link NativeRunner}
 * for a native method of the host. It takes the messages of the sandbox
 * protocol (stdin lines, EOF, filesystem replies) and can be killed.
 */
export interface ProcessRunner {
  /** Sends a message; lost silently once the process has ended. */
  send(msg: ToSandbox): void;
  /** Ends it at once. */
  kill(): void;
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
}

/** How many journal lines a process keeps in memory (for -32002 and `/proc/<pid>/log`). */
const KEEP_LINES = 1000;

/** A running process. */
export class Process implements Caller {
  /** Attached processes started by this one. */
  readonly children = new Set<Process>();
  /** Its journal lines so far (the newest `KEEP_LINES`). */
  readonly lines: string[] = [];
  /** The current state. */
  state: ProcessState = "running";
  /** Set once the process has answered its call. */
  answered = false;
  /** The start time, ms since the epoch. */
  readonly startTime = Date.now();
  /** Resolves with its exit when it has ended. */
  readonly ended: Promise<ExitInfo>;
  /** Set when it has ended. */
  exit: ExitInfo | null = null;
  /** The files it wrote to its `/self`; they go away with it. */
  readonly self = new MemMount();
  /** Serves its `/proc`, `/self` and `/run`; set by the supervisor. */
  fs: FsServer | null = null;
  /**
   * Also receives its text output (stdout lines that are not JSON-RPC, and
   * stderr lines), beside the journal: set for commands such as a test.
   */
  onOutput: OutputHandler | null = null;
  private resolveEnded!: (e: ExitInfo) => void;

  constructor(
    /** `<plugin>-<uuidv7>`. */
    readonly pid: string,
    readonly plugin: string,
    readonly method: string,
    readonly params: JsonObject,
    /** Who gets the answer; the parent unless detached. */
    readonly caller: Caller,
    /** The id of the caller's request; undefined when nobody waits for the answer. */
    readonly callerId: Id | undefined,
    readonly detached: boolean,
    /** What it runs in: a sandbox, or a native runner. */
    readonly runner: ProcessRunner,
  ) {
    this.ended = new Promise((r) => (this.resolveEnded = r));
  }

  /** The sandbox it runs in; null for a native process. */
  get sandbox(): Sandbox | null {
    return this.runner instanceof NativeRunner ? null : this.runner as Sandbox;
  }

  /** True for a native method of the host (no sandbox). */
  get native(): boolean {
    return this.runner instanceof NativeRunner;
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
  get gone(): boolean {
    return this.exit !== null;
  }

  /** True while its caller still waits for the answer (notifications are forwarded). */
  get callerWaits(): boolean {
    return !this.answered && this.callerId !== undefined && !this.caller.gone;
  }

  /** Writes a message to its stdin. */
  deliver(msg: Message): void {
    if (!this.gone) this.runner.send({ op: "in", line: JSON.stringify(msg) });
  }

  /** Keeps a journal line in memory. */
  remember(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEEP_LINES) this.lines.splice(0, this.lines.length - KEEP_LINES);
  }

  /** Marks it ended; called once by the supervisor. */
  markEnded(exit: ExitInfo): void {
    this.exit = exit;
    this.state = "ended";
    this.resolveEnded(exit);
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
    };
  }
}
