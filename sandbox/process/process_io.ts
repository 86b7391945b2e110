/**
 * What a process of either engine is given and what it ends with: its
 * stdio, its pipe to the core, its control and memories (`ProcessIo`), what
 * a command adds (`CommandOptions`), and how it ended (`Ended`).
 *
 * @module
 */

import type { ByteQueue } from "../wasi/pipes.ts";
import type { OutputWindow } from "../guest/output_window.ts";
import type { FsChannel } from "../mounts/remote_mount.ts";
import type { ExtraPreopen } from "../hop/protocol.ts";
import type { GuestControl } from "../guest/guest_control.ts";
import type { MemorySource } from "../guest/process_memories.ts";

/** The stdio and exit of a running process, as the sandbox sees them. */
export interface ProcessIo {
  /** Its stdout and stderr lines in flight to the core, if bounded (`output_window_kib`). */
  window?: OutputWindow;
  /** Its stdin, as the core sends it. */
  stdin: ByteQueue;
  /** The pipe to the core for `/proc`, `/self` and `/run`. */
  fs: FsChannel;
  /** Its time slices, kill switch and memory limit. */
  control: GuestControl;
  /** The longest line on stdout or stderr, in bytes: a longer one ends the process. */
  maxLine: number;
  /** Where its memory comes from and goes back to (charged first: `guest/process_memories.ts`). */
  memories: MemorySource;
  /** Takes one line the process wrote to stdout. */
  onStdout(line: string): void;
  /** Takes one line the process wrote to stderr. */
  onStderr(line: string): void;
}

/** What a command gets beyond a plugin process (all optional). */
export interface CommandOptions {
  /** `wasi:cli/environment.get-arguments` (default none). */
  args?: string[];
  /** `initial-cwd` (default `/`). */
  cwd?: string;
  /** Host folders preopened beside `/`, at their guest paths. */
  preopens?: ExtraPreopen[];
  /** Only `preopens` (`RunMessage.onlyPreopens`). */
  onlyPreopens?: boolean;
}

/** How a process ended. */
export interface Ended {
  /** Its exit status: 0 for success. */
  status: number;
  /** Why it ended, when it trapped or was killed (the core shows it). */
  error?: string;
}

/**
 * Runs one process of the cache entry at `dir` to its end, in the world
 * folder `world` (or `SERVED_WORLD`), with `env`; a command adds `command`.
 * Each engine (`jco/run.ts`, `preview1/run.ts`) is one, and so is
 * `run_process.ts`, which picks between them.
 */
export type RunProcess = (
  dir: string,
  world: string,
  env: [string, string][],
  io: ProcessIo,
  command?: CommandOptions,
) => Promise<Ended>;
