/**
 * What the functions of one process's binding share: its memory, its
 * descriptors and a number per mount for `filestat.dev`.
 *
 * @module
 */

import type { Mount } from "../../vfs/mount.ts";
import type { FdTable } from "./fd_table.ts";
import type { GuestMemory } from "./memory.ts";

/** The state of one process's preview-1 binding. */
export interface Preview1Context {
  mem: GuestMemory;
  fds: FdTable;
  /** A number per mount (`filestat.dev`): the same file shows the same `dev` and `ino`. */
  devOf(mount: Mount): number;
}

/** A binding function: an errno, or a promise of one when it waits (JSPI suspends). */
// deno-lint-ignore no-explicit-any
export type Preview1Fn = (...args: any[]) => number | Promise<number>;
