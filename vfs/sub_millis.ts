/**
 * The nanoseconds of file times that Deno cannot carry. Deno reads and sets
 * times to the millisecond only (`Deno.FileInfo`'s dates, `Deno.utime`,
 * and `node:fs` in Deno alike), while WASI times are nanoseconds: a guest
 * that sets `…126999900` ns must read that back. So the disk mount keeps,
 * per file (device and inode), the nanoseconds past the millisecond of the
 * times a guest set, and adds them to a stat as long as the disk still
 * holds that millisecond; any other change of the time (a write, a `touch`)
 * shows the disk's value again. Kept in memory, per mount object (so per
 * sandbox), at most {@link LIMIT} files, the oldest forgotten first.
 *
 * @module
 */

import type { Instant, Stat } from "./mount.ts";

/** How many files are remembered. */
const LIMIT = 4096;

interface Kept {
  atime?: Instant;
  mtime?: Instant;
}

/** Sub-millisecond parts of times set through one mount. */
export class SubMillis {
  private kept = new Map<string, Kept>();

  private key(info: Deno.FileInfo): string {
    return `${info.dev}:${info.ino}`;
  }

  /** Records the times just set on the file that `info` describes (null: not changed). */
  remember(info: Deno.FileInfo, atime: Instant | null, mtime: Instant | null): void {
    const key = this.key(info);
    const k = this.kept.get(key) ?? {};
    this.kept.delete(key);
    if (atime) k.atime = atime;
    if (mtime) k.mtime = mtime;
    if (!k.atime?.ns && !k.mtime?.ns) return;
    this.kept.set(key, k);
    if (this.kept.size > LIMIT) this.kept.delete(this.kept.keys().next().value!);
  }

  /** Adds the nanoseconds to `stat` where the disk still holds the millisecond that was set. */
  fill(info: Deno.FileInfo, stat: Stat): void {
    if (this.kept.size === 0) return;
    const k = this.kept.get(this.key(info));
    if (!k) return;
    if (k.atime && stat.atime === k.atime.ms) stat.atimeNs = k.atime.ns;
    if (k.mtime && stat.mtime === k.mtime.ms) stat.mtimeNs = k.mtime.ns;
  }
}
