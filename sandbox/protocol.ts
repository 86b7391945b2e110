/**
 * The messages between the core and a sandbox subprocess, one JSON object per
 * line on the sandbox's stdin and stdout. A sandbox runs one process at a
 * time, so no message needs a process id.
 *
 * @module
 */

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
  /** The process id, for error messages. */
  pid: string;
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
  /** The initial current folder (`initial-cwd`); `/` by default. */
  cwd?: string;
}

/** The mounts the core serves to a process, by their preopen name. */
export type RemoteMountName = "proc" | "self" | "run";

/**
 * A filesystem request from a process to the core, for a mount the core
 * serves. `method` is a `Mount` method, or `h.<method>` of an open handle
 * (then `args[0]` is the handle number). Bytes travel as base64.
 */
export interface FsRequest {
  op: "fs";
  id: number;
  mount: RemoteMountName;
  method: string;
  args: unknown[];
}

/** The answer to an `FsRequest`: a result, or a WIT error code with a message. */
export interface FsReply {
  op: "fs-reply";
  id: number;
  result?: unknown;
  error?: { code: string; message: string };
}

/** Core → sandbox. */
export type ToSandbox =
  | RunMessage
  | { op: "in"; line: string }
  | { op: "eof" }
  | FsReply;

/** Sandbox → core. */
export type FromSandbox =
  | { op: "ready" }
  | { op: "out"; line: string }
  | { op: "err"; line: string }
  | { op: "exit"; status: number; error?: string }
  | FsRequest;
