/**
 * A file of the world on disk as an open handle, and the stat of what a
 * disk entry is, in the mounts' terms.
 *
 * @module
 */

import type { FileHandle, FileType, Stat } from "./mount.ts";
import type { SubMillis } from "./sub_millis.ts";
import type { DiskBudget } from "./disk_budget.ts";

/** The WIT type of what `info` describes. */
function fileType(info: Deno.FileInfo): FileType {
  if (info.isSymlink) return "symbolic-link";
  if (info.isDirectory) return "directory";
  if (info.isFile) return "regular-file";
  return "unknown";
}

/** A mount stat of `info`, with the nanoseconds the mount kept. */
export function toStat(info: Deno.FileInfo, subMillis: SubMillis): Stat {
  const stat: Stat = {
    type: fileType(info),
    size: info.size,
    nlink: info.nlink ?? 1,
    mtime: info.mtime?.getTime(),
    atime: info.atime?.getTime(),
    ctime: info.ctime?.getTime() ?? info.birthtime?.getTime(),
    ino: BigInt(info.ino ?? 0),
  };
  subMillis.fill(info, stat);
  return stat;
}

/** An open file on disk. */
export class DiskFile implements FileHandle {
  /**
   * @param file the open file
   * @param subMillis the nanoseconds of times its mount kept
   * @param budget the world's disk bound, told of every growth (none: unbounded)
   * @param length the file's length when opened (what growth is counted from)
   */
  constructor(
    private file: Deno.FsFile,
    private subMillis: SubMillis,
    private budget?: DiskBudget,
    private length = 0,
  ) {}
  read(len: number, offset: number): Uint8Array {
    const buf = new Uint8Array(len);
    this.file.seekSync(offset, Deno.SeekMode.Start);
    let n = 0;
    while (n < len) {
      const got = this.file.readSync(buf.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  }
  write(bytes: Uint8Array, offset: number): number {
    const end = offset + bytes.length;
    if (this.budget && end > this.length) {
      this.budget.grow(end - this.length);
      this.length = end;
    }
    this.file.seekSync(offset, Deno.SeekMode.Start);
    let n = 0;
    while (n < bytes.length) n += this.file.writeSync(bytes.subarray(n));
    return n;
  }
  size(): number {
    return this.file.statSync().size;
  }
  stat(): Stat {
    return toStat(this.file.statSync(), this.subMillis);
  }
  truncate(size: number): void {
    if (this.budget) {
      if (size > this.length) this.budget.grow(size - this.length);
      else this.budget.shrink(this.length - size);
      this.length = size;
    }
    this.file.truncateSync(size);
  }
  sync(): void {
    this.file.syncSync();
  }
  close(): void {
    try {
      this.file.close();
    } catch { /* already closed */ }
  }
}
