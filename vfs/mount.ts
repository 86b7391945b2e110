/**
 * The filesystem interface that every mount implements: the world folder on
 * disk, `/proc`, `/self`, `/run` and the sandbox's remote mounts. Paths given to a mount are
 * already checked and relative to its root ("" is the root, "a/b" a child):
 * `..` never reaches a mount.
 *
 * Methods may answer synchronously or with a promise, so a mount served by the
 * core over a channel fits the same interface.
 *
 * @module
 */

/** The WIT `descriptor-type` names. */
export type FileType = "directory" | "regular-file" | "symbolic-link" | "unknown";

/** A point in time: whole milliseconds since the epoch, and the nanoseconds past them. */
export interface Instant {
  ms: number;
  /** 0–999,999. */
  ns: number;
}

/**
 * What `stat` tells. Times are whole milliseconds since the epoch; the
 * `…Ns` fields add the nanoseconds past them where the mount knows them
 * (absent: 0).
 */
export interface Stat {
  type: FileType;
  size: number;
  nlink: number;
  mtime?: number;
  atime?: number;
  ctime?: number;
  mtimeNs?: number;
  atimeNs?: number;
  ctimeNs?: number;
  /** A number that is the same for the same file (inode, or an id of the mount). */
  ino: bigint;
}

/** A name in a directory. */
export interface DirEntry {
  name: string;
  type: FileType;
}

/** How to open a file. */
export interface OpenOptions {
  read: boolean;
  write: boolean;
  create: boolean;
  exclusive: boolean;
  truncate: boolean;
  directory: boolean;
  /** Do not follow a symlink in the last component: opening one fails with `loop`. */
  nofollow?: boolean;
}

/** Open an existing file for reading only: the options every reader of a whole file uses. */
export const READ_ONLY: Readonly<OpenOptions> = {
  read: true,
  write: false,
  create: false,
  exclusive: false,
  truncate: false,
  directory: false,
};

/** An open regular file. */
export interface FileHandle {
  /** Reads up to `len` bytes at `offset`; fewer at the end of the file. */
  read(len: number, offset: number): Uint8Array | Promise<Uint8Array>;
  /** Writes `bytes` at `offset`; returns the count written. */
  write(bytes: Uint8Array, offset: number): number | Promise<number>;
  /** The current size, for appends. */
  size(): number | Promise<number>;
  /** The file's stat. */
  stat(): Stat | Promise<Stat>;
  /** Sets the size. */
  truncate(size: number): void | Promise<void>;
  /** Writes data to stable storage. */
  sync(): void | Promise<void>;
  /** Releases the handle. */
  close(): void;
}

/** A filesystem mount. All paths are checked, mount-relative strings. */
export interface Mount {
  /** False for mounts where every write fails with `read-only`. */
  readonly writable: boolean;
  stat(path: string, follow: boolean): Stat | Promise<Stat>;
  /** Opens a regular file (or checks a directory when `opts.directory`). */
  open(path: string, opts: OpenOptions): FileHandle | null | Promise<FileHandle | null>;
  readDir(path: string): DirEntry[] | Promise<DirEntry[]>;
  mkdir(path: string): void | Promise<void>;
  rmdir(path: string): void | Promise<void>;
  unlink(path: string): void | Promise<void>;
  rename(from: string, to: string): void | Promise<void>;
  symlink(target: string, path: string): void | Promise<void>;
  /** Makes `to` a hard link to the file `from` (a symlink in its last component followed when `follow`). */
  link(from: string, to: string, follow: boolean): void | Promise<void>;
  readlink(path: string): string | Promise<string>;
  setTimes(
    path: string,
    atime: Instant | null,
    mtime: Instant | null,
    follow: boolean,
  ): void | Promise<void>;
}

/** Fails with `read-only`: each write of a read-only mount. */
function refuseWrite(): never {
  throw new FsError("read-only");
}

/**
 * A mount that can only be read: its writes fail with `read-only`; the
 * reads are the subclass's.
 */
export abstract class ReadOnlyMount implements Mount {
  /** Always false. */
  readonly writable = false;
  abstract stat(path: string, follow: boolean): Stat | Promise<Stat>;
  abstract open(path: string, opts: OpenOptions): FileHandle | null | Promise<FileHandle | null>;
  abstract readDir(path: string): DirEntry[] | Promise<DirEntry[]>;
  abstract readlink(path: string): string | Promise<string>;
  /** Each write fails with `read-only`. */
  mkdir = refuseWrite;
  rmdir = refuseWrite;
  unlink = refuseWrite;
  rename = refuseWrite;
  symlink = refuseWrite;
  link = refuseWrite;
  setTimes = refuseWrite;
}

/** An instant from milliseconds since the epoch. */
export function instantOfMs(ms: number): Instant {
  const whole = Math.floor(ms);
  return { ms: whole, ns: Math.round((ms - whole) * 1e6) };
}

/** A filesystem error with its WIT `error-code` name (`no-entry`, `access`, …). */
export class FsError extends Error {
  /** @param code the WIT error-code name a guest sees */
  constructor(readonly code: string, message?: string) {
    super(message ?? code);
    this.name = "FsError";
  }
}

/**
 * Resolves a guest path against a descriptor's mount-relative directory.
 * Absolute paths and `..` that climb above the mount root fail with
 * `not-permitted`, as in wasmtime.
 */
export function resolveGuestPath(base: string, path: string): string {
  if (path.startsWith("/")) throw new FsError("not-permitted", `absolute path ${path}`);
  const parts = base === "" ? [] : base.split("/");
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) throw new FsError("not-permitted", `${path} leaves its preopen`);
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join("/");
}
