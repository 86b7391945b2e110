/**
 * Preview-1's constants (rights, file types, the `fstflags` of time
 * changes), the records written by their layouts (`layout.ts`: `filestat`,
 * `fdstat`) and their conversions from the mounts' values.
 *
 * @module
 */

import type { FileType, Stat } from "../../vfs/mount.ts";
import type { NewTimestamp } from "../wasi/filesystem_values.ts";
import type { GuestMemory } from "./memory.ts";
import { ERRNO, Errno } from "./errno.ts";
import { LAYOUT } from "./layout.ts";

/** `filetype` values. */
export const FILETYPE = {
  unknown: 0,
  characterDevice: 2,
  directory: 3,
  regularFile: 4,
  symbolicLink: 7,
} as const;

/** A mount's file type as a preview-1 `filetype`. */
export function filetypeOf(type: FileType): number {
  switch (type) {
    case "directory":
      return FILETYPE.directory;
    case "regular-file":
      return FILETYPE.regularFile;
    case "symbolic-link":
      return FILETYPE.symbolicLink;
    default:
      return FILETYPE.unknown;
  }
}

/** `rights` bits the binding looks at. */
export const RIGHTS = {
  fdRead: 1n << 1n,
  fdSeek: 1n << 2n,
  fdTell: 1n << 5n,
  fdWrite: 1n << 6n,
  fdAllocate: 1n << 8n,
  pathFilestatSetSize: 1n << 19n,
  fdFilestatSetSize: 1n << 22n,
  fdReaddir: 1n << 14n,
  /** Every right preview 1 defines. */
  all: (1n << 30n) - 1n,
} as const;

/** Rights a descriptor without read access lacks (as the adapter reports them). */
export const READ_RIGHTS = RIGHTS.fdRead | RIGHTS.fdReaddir;

/**
 * Rights a folder never has (as wasmtime reports them): those of a file's
 * bytes, and truncating by path, which WASI 0.2 has no call for.
 */
export const FILE_ONLY_RIGHTS = RIGHTS.fdRead | RIGHTS.fdWrite | RIGHTS.fdSeek | RIGHTS.fdTell |
  RIGHTS.fdAllocate | RIGHTS.fdFilestatSetSize | RIGHTS.pathFilestatSetSize;

/** `fdflags`. */
export const FDFLAGS = { append: 1, dsync: 2, nonblock: 4, rsync: 8, sync: 16 } as const;
/** `oflags`. */
export const OFLAGS = { creat: 1, directory: 2, excl: 4, trunc: 8 } as const;
/** `lookupflags`. */
export const SYMLINK_FOLLOW = 1;

/** Nanoseconds since the epoch of whole milliseconds plus nanoseconds. */
function ns(ms: number | undefined, extra: number | undefined): bigint {
  if (ms === undefined) return 0n;
  return BigInt(Math.floor(ms)) * 1_000_000n + BigInt(extra ?? 0);
}

/** Writes a `filestat` (64 bytes) at `ptr`. */
export function writeFilestat(mem: GuestMemory, ptr: number, st: Stat, dev: number): void {
  const { size, align, fields: f } = LAYOUT.filestat;
  mem.check(ptr, size, align);
  const v = mem.view();
  v.setBigUint64(ptr + f.dev, BigInt(dev), true);
  v.setBigUint64(ptr + f.ino, BigInt.asUintN(64, st.ino), true);
  v.setBigUint64(ptr + f.filetype, BigInt(filetypeOf(st.type)), true); // and its padding
  v.setBigUint64(ptr + f.nlink, BigInt(st.nlink), true);
  v.setBigUint64(ptr + f.size, BigInt(st.size), true);
  v.setBigUint64(ptr + f.atim, ns(st.atime, st.atimeNs), true);
  v.setBigUint64(ptr + f.mtim, ns(st.mtime, st.mtimeNs), true);
  v.setBigUint64(ptr + f.ctim, ns(st.ctime, st.ctimeNs), true);
}

/** Writes a `filestat` of zeroes but its type (stdio). */
export function writeEmptyFilestat(mem: GuestMemory, ptr: number, type: number): void {
  const { size, align, fields: f } = LAYOUT.filestat;
  mem.check(ptr, size, align);
  mem.bytes().fill(0, ptr, ptr + size);
  mem.view().setUint8(ptr + f.filetype, type);
}

/** Writes an `fdstat` (24 bytes) at `ptr`. */
export function writeFdstat(
  mem: GuestMemory,
  ptr: number,
  type: number,
  flags: number,
  base: bigint,
  inheriting: bigint,
): void {
  const { size, align, fields: f } = LAYOUT.fdstat;
  mem.check(ptr, size, align);
  const v = mem.view();
  v.setUint16(ptr + f.fs_filetype, type, true); // and its padding
  v.setUint16(ptr + f.fs_flags, flags, true);
  v.setUint32(ptr + f.fs_flags + 2, 0, true);
  v.setBigUint64(ptr + f.fs_rights_base, base, true);
  v.setBigUint64(ptr + f.fs_rights_inheriting, inheriting, true);
}

/** `fstflags` bits. */
export const FSTFLAGS = { atim: 1, atimNow: 2, mtim: 4, mtimNow: 8 } as const;
const FST = FSTFLAGS;

/** One time of a preview-1 time change as a WIT `new-timestamp`. */
function newTimestamp(t: bigint, set: boolean, now: boolean): NewTimestamp {
  if (set && now) throw new Errno(ERRNO.inval);
  if (now) return { tag: "now" };
  if (!set) return { tag: "no-change" };
  const u = BigInt.asUintN(64, t);
  return {
    tag: "timestamp",
    val: { seconds: u / 1_000_000_000n, nanoseconds: Number(u % 1_000_000_000n) },
  };
}

/** The access and modification times of a preview-1 time change (EINVAL for a bad `fstflags`). */
export function timesOf(
  atim: bigint,
  mtim: bigint,
  fst: number,
): [NewTimestamp, NewTimestamp] {
  if (fst & ~15) throw new Errno(ERRNO.inval);
  return [
    newTimestamp(atim, !!(fst & FST.atim), !!(fst & FST.atimNow)),
    newTimestamp(mtim, !!(fst & FST.mtim), !!(fst & FST.mtimNow)),
  ];
}
