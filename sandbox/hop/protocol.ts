/**
 * The messages between the core and a sandbox. A sandbox runs many
 * processes at once, so every message about a process names it by `pid`.
 * Nothing here depends on what carries them: `frames.ts` turns them into
 * bytes (a line of another channel travels raw, not as JSON inside JSON),
 * `link.ts` is the seam a carrier implements (a pipe pair, a Unix socket,
 * NATS), and `protocol_check.ts` checks each where it is received.
 *
 * @module
 */

import type { FsCall, FsResult } from "../../vfs/wire.ts";

/** A host folder preopened at a guest path, beside `/` (a disk mount, read-write). */
export interface ExtraPreopen {
  /** Where the process sees it, an absolute guest path such as `/work/notes`. */
  guestPath: string;
  /** The host folder; the sandbox must have been started with read and write access to it. */
  hostPath: string;
}

/** Starts a process: a fresh instance of a transpiled component. */
export interface RunMessage {
  op: "run";
  /** The process id: every later message about it carries it. */
  pid: string;
  /** The most bytes one memory of the process may grow to. */
  memoryLimit: number;
  /** The longest line it may write on stdout or stderr, in bytes; a longer one ends it. */
  maxLine: number;
  /**
   * Its stdout and stderr text the core may not yet have taken (`took`),
   * in UTF-16 units plus one per line (`output_window_kib`): past it, its
   * writes wait. Absent: unbounded.
   */
  outputWindow?: number;
  /** The folder of the transpiled component (`plugin.js` and core modules). */
  dir: string;
  /** The environment of the process. */
  env: [string, string][];
  /** The host folder that is `/` for the process. */
  world: string;
  /** The first line of stdin: the request. Absent for a command: nothing is written first. */
  request?: string;
  /** The arguments of a command, the program name first (`wasi:cli/environment.get-arguments`); none by default. */
  args?: string[];
  /** More preopened folders, beside `/`, `/proc`, `/self` and `/run`. */
  preopens?: ExtraPreopen[];
  /**
   * Only `preopens`, in their order: no `/`, `/proc`, `/self` or `/run` (a
   * command whose folders are given whole: a wasi-testsuite case). Set only
   * by the core for a command, never for a plugin's process.
   */
  onlyPreopens?: boolean;
  /** The initial current folder (`initial-cwd`); `/` by default. */
  cwd?: string;
}

/**
 * The mounts the core serves to a process, by their preopen name; and, for
 * making symlinks only (`sandbox/mounts/core_symlinks.ts`), the world (`world`)
 * and a command's extra preopens (`preopen:<guest path>`).
 */
export type RemoteMountName = "proc" | "self" | "run" | "world" | `preopen:${string}`;

/**
 * A filesystem request from a process to the core, for a mount the core
 * serves: one call of `vfs/wire.ts` (a method and its params). The core
 * checks it again on arrival (`checkFsCall`): it does not trust a sandbox.
 */
export interface FsRequest {
  op: "fs";
  /** The process asking. */
  pid: string;
  /** Its number for the request, which the reply carries back. */
  id: number;
  /** Which of the core's mounts. */
  mount: RemoteMountName;
  /** The method and its params. */
  call: FsCall;
}

/**
 * The answer to an `FsRequest`: the method's result; or a WIT error code
 * with a message (an errno such as `no-entry`); or, when the core failed
 * serving it (a host fault, journaled there), `fault`, and the process traps.
 */
export interface FsReply {
  op: "fs-reply";
  /** The process that asked. */
  pid: string;
  /** The request's number. */
  id: number;
  /** What the method returns (the method's type in `FsMethods`). */
  result?: FsResult;
  /** The errno, as a WIT `error-code` name, and what failed. */
  error?: { code: string; message: string };
  /** What the core failed at (a host fault). */
  fault?: string;
}

/** How a process ended in its sandbox. */
export interface ExitMessage {
  op: "exit";
  pid: string;
  /** The exit status (0 after `run` returned ok, 1 after an error or a trap). */
  status: number;
  /** What went wrong: a trap, the memory limit, a kill. */
  error?: string;
}

/** Core → sandbox. */
export type ToSandbox =
  | RunMessage
  /** A line for the process's stdin: one JSON-RPC message, serialized once by the core. */
  | { op: "in"; pid: string; line: string }
  /** EOF on the process's stdin: "stop now". */
  | { op: "eof"; pid: string }
  /** End the process at its next check; its pending host calls fail now. */
  | { op: "kill"; pid: string }
  /** Are you there? Answered with `pong` (the core's stall detector). */
  | { op: "ping"; n: number }
  /** The core has handled `count` more of the process's output (its `outputWindow` has room). */
  | { op: "took"; pid: string; count: number }
  | FsReply;

/** Sandbox → core. */
export type FromSandbox =
  | { op: "ready" }
  | { op: "pong"; n: number }
  | { op: "out"; pid: string; line: string }
  | { op: "err"; pid: string; line: string }
  | ExitMessage
  | FsRequest;

/** A message about one process (everything but `ready` and `pong`). */
export type ProcessMessage = Exclude<FromSandbox, { op: "ready" } | { op: "pong" }>;
