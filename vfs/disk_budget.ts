/**
 * The disk bound of a world (`disk_mib` in `config/limits.json`): guests get
 * `insufficient-space` (ENOSPC) when a write would take the world folder past
 * it, before the disk itself fills.
 *
 * Counting is cheap and approximate. Each sandbox keeps its own count: the
 * world is walked (every regular file's size, every folder's) in the
 * background when the sandbox starts (or at its first write that grows the
 * world, if that comes first), then the growth its own processes cause is
 * added (a write past a file's end, a truncate that lengthens, a new folder)
 * and what they delete is taken off. The world is walked again after each
 * 1/16 of the bound that this sandbox added, and before refusing a write
 * (at most once a second), so what other sandboxes, builds and the owner
 * wrote is seen then. Sizes are file lengths, so a sparse file counts whole
 * and a hard link counts twice: the count errs high. The world may pass the
 * bound by at most what the other sandboxes added since their last walk
 * (under 1/16 of the bound each).
 *
 * @module
 */

import { FsError } from "./mount.ts";

/** What a folder entry takes at least (a folder's own size on most file systems). */
const FOLDER_BYTES = 4096;

/** A refused write is counted again at most this often (ms). */
const RECOUNT_MS = 1000;

/** Sums the sizes under `dir` (not following links). */
function walk(dir: string): number {
  let total = 0;
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(dir);
  } catch {
    return 0; // gone, or not ours to read
  }
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) {
      total += FOLDER_BYTES + walk(path);
    } else if (e.isFile) {
      try {
        total += Deno.lstatSync(path).size;
      } catch { /* gone */ }
    }
  }
  return total;
}

/** Sums the sizes under `dir` like {@link walk}, without holding the thread (for a start). */
async function walkAsync(dir: string): Promise<number> {
  let total = 0;
  try {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) {
        total += FOLDER_BYTES + await walkAsync(path);
      } else if (e.isFile) {
        total += await Deno.lstat(path).then((i) => i.size, () => 0);
      }
    }
  } catch { /* gone, or not ours to read */ }
  return total;
}

/** The disk bound of one world folder, as one sandbox counts it. */
export class DiskBudget {
  /** Bytes the world holds, as last counted plus the growth since; -1 before the first walk. */
  private used = -1;
  private grownSinceWalk = 0;
  private lastWalk = 0;
  private readonly recountEvery: number;

  /**
   * @param root the world folder
   * @param limit the most bytes it may hold
   */
  constructor(private root: string, readonly limit: number) {
    this.recountEvery = Math.max(1 << 20, Math.floor(limit / 16));
  }

  /** The bytes counted now (walks the world when it was never walked). */
  count(): number {
    if (this.used < 0) this.walk();
    return this.used;
  }

  /**
   * Counts the world in the background (a sandbox's start), so that the
   * first write that grows it does not wait for a walk; a write before it
   * ends walks at once, as without it.
   */
  prime(): Promise<void> {
    const started = Date.now();
    return walkAsync(this.root).then((n) => {
      if (this.used >= 0) return; // a write walked first
      this.used = n;
      this.grownSinceWalk = 0;
      this.lastWalk = started;
    });
  }

  private walk(): void {
    this.used = walk(this.root);
    this.grownSinceWalk = 0;
    this.lastWalk = Date.now();
  }

  /**
   * Takes `bytes` more of the world; throws `insufficient-space` (and takes
   * nothing) when that would pass the bound.
   */
  grow(bytes: number): void {
    if (bytes <= 0) return;
    if (this.used < 0 || this.grownSinceWalk + bytes > this.recountEvery) this.walk();
    if (this.used + bytes > this.limit && Date.now() - this.lastWalk > RECOUNT_MS) this.walk();
    if (this.used + bytes > this.limit) {
      throw new FsError(
        "insufficient-space",
        `the world would pass its disk bound of ${Math.round(this.limit / 2 ** 20)} MiB ` +
          `("disk_mib" in config/limits.json): ${this.used} bytes used, ${bytes} more asked`,
      );
    }
    this.used += bytes;
    this.grownSinceWalk += bytes;
  }

  /** Gives back `bytes` (a file deleted or shortened). */
  shrink(bytes: number): void {
    if (this.used > 0 && bytes > 0) this.used = Math.max(0, this.used - bytes);
  }

  /** A new folder. */
  folder(): void {
    this.grow(FOLDER_BYTES);
  }
}
