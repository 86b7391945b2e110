/**
 * The messages between the core and a sandbox subprocess, one JSON object per
 * line on the sandbox's stdin and stdout. A sandbox runs one process at a
 * time, so no message needs a process id.
 *
 * @module
 */

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
  /** The first line of stdin: the request. */
  request: string;
}

/** Core → sandbox. */
export type ToSandbox =
  | RunMessage
  | { op: "in"; line: string }
  | { op: "eof" };

/** Sandbox → core. */
export type FromSandbox =
  | { op: "ready" }
  | { op: "out"; line: string }
  | { op: "err"; line: string }
  | { op: "exit"; status: number; error?: string };
