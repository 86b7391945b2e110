/**
 * A process's table of preview-1 file descriptors: 0–2 are its stdio, then
 * its preopens in order (`/`, the extra ones, `/proc`, `/self`, `/run`),
 * then what it opens. Files and folders are `sandbox/wasi/`'s `Descriptor`s
 * (the same path rules as the component path); the table adds what preview 1
 * keeps per descriptor: the position, the append flag, the descriptor flags
 * and a folder's listing for `fd_readdir`'s cookies.
 *
 * @module
 */

import type { Descriptor } from "../wasi/filesystem.ts";
import type { ByteQueue, LineSink } from "../wasi/pipes.ts";
import { ERRNO, Errno } from "./errno.ts";

/** The most descriptors one process may have open (EMFILE past it). */
export const MAX_FDS = 4096;

/** stdin, stdout or stderr. */
export interface StdioEntry {
  kind: "stdio";
  /** stdin's queue. */
  input?: ByteQueue;
  /** stdout's or stderr's line sink. */
  output?: LineSink;
}

/** One name in a folder listing, with its inode for `d_ino`. */
export interface ListedEntry {
  name: Uint8Array;
  type: number;
  ino: bigint;
}

/** An open file or folder. */
export interface FileEntry {
  kind: "file" | "dir";
  desc: Descriptor;
  /** The offset of the next `fd_read`/`fd_write` (files). */
  pos: number;
  /** Writes go to the end (`FDFLAGS_APPEND`). */
  append: boolean;
  /** The other `fdflags` it was opened with (dsync, nonblock, rsync, sync). */
  fdflags: number;
  /** Its guest path, for a preopen (`fd_prestat_*`). */
  preopen?: Uint8Array;
  /** The listing `fd_readdir` reads from, taken at cookie 0. */
  listing?: ListedEntry[];
}

/** A descriptor table entry. */
export type Entry = StdioEntry | FileEntry;

/** The descriptors of one process. */
export class FdTable {
  private entries: (Entry | undefined)[] = [];
  private count = 0;

  /** Puts `entry` at the lowest free descriptor and returns it. */
  add(entry: Entry): number {
    if (this.count >= MAX_FDS) throw new Errno(ERRNO.mfile);
    let fd = this.entries.indexOf(undefined);
    if (fd < 0) fd = this.entries.length;
    this.entries[fd] = entry;
    this.count++;
    return fd;
  }

  /** The entry at `fd`; EBADF when none. */
  get(fd: number): Entry {
    const e = this.entries[fd];
    if (!e) throw new Errno(ERRNO.badf);
    return e;
  }

  /** The file or folder at `fd`: EBADF when none or stdio. */
  file(fd: number): FileEntry {
    const e = this.get(fd);
    if (e.kind === "stdio") throw new Errno(ERRNO.badf);
    return e;
  }

  /** The folder at `fd`: ENOTDIR for a file, EBADF when none. */
  dir(fd: number): FileEntry {
    const e = this.get(fd);
    if (e.kind !== "dir") throw new Errno(ERRNO.notdir);
    return e;
  }

  /** Removes and closes `fd`. */
  close(fd: number): void {
    const e = this.get(fd);
    this.entries[fd] = undefined;
    this.count--;
    release(e);
  }

  /** Moves `from` onto `to` (both must be open); `to`'s old entry is closed. */
  renumber(from: number, to: number): void {
    const e = this.get(from);
    const old = this.get(to);
    if (from === to) return;
    this.entries[from] = undefined;
    this.entries[to] = e;
    this.count--;
    release(old);
  }

  /** Closes everything (process end). */
  closeAll(): void {
    for (const e of this.entries) if (e) release(e);
    this.entries = [];
    this.count = 0;
  }
}

function release(e: Entry): void {
  if (e.kind !== "stdio") e.desc[Symbol.dispose]();
}
