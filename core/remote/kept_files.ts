/**
 * The small world files a worker keeps between its processes, as the host
 * sees them: the worker answers a later read-only open of the same path
 * from what it kept, without asking the host (no NATS round trip), until
 * the host tells it to drop the file (`uncache`, PROTOCOL.md 4.10).
 *
 * The host never serves a change itself to decide that: local processes
 * write the world folder directly, behind its back. It looks instead. Each
 * kept file's stat as it was before its bytes were read (type, size, inode,
 * links, modification and change times) is compared with the path's stat
 * now before every message the host sends that worker ({@link KeptFiles.check}
 * at each NATS message, and every {@link CHECK_MS} while any is kept); a
 * file that differs is dropped, and the drop goes first in that message.
 * So anything a process wrote before the host said a word to the worker
 * (a call, an answer, a file's bytes: everything a remote process learns
 * comes that way) is seen by every process there after it; a remote
 * process that hears nothing from the host sees it within about
 * {@link CHECK_MS}.
 *
 * A write changes a file's change time (`ctime`), which no process can set,
 * but Deno gives it to the second (and the kernel moves it by its clock
 * tick): a second write in the second of the first would leave it as it
 * was. So a file is kept only when its change time is at least
 * {@link RACY_MS} before its bytes were read (as git treats a "racily
 * clean" file); one changed that recently is served as before, whole, and
 * kept at a later read. (A clock set back by more than that could hide a
 * change; writes through a shared memory map, which WASI has not, change
 * the times late.)
 *
 * @module
 */

import type { Mount, Stat } from "../../vfs/mount.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";

/** How often the kept files are compared while the host has nothing to send (ms). */
export const CHECK_MS = 250;

/**
 * How long before its read a kept file must have last changed (ms): the
 * change time's second (as Deno gives it) and a clock tick.
 */
export const RACY_MS = 1100;

/** The most files one worker keeps (each at most `WHOLE_FILE_MAX` bytes). */
export const KEPT_FILES_MAX = 16;

/**
 * The key of a read-only open that a kept file may answer (the worker's and
 * the host's alike): its path and whether it follows a last symlink, as
 * JSON; null for any other request (a write, a folder, a create).
 */
export function keptKey(call: unknown): string | null {
  const c = call as { method?: unknown; args?: unknown[] } | null;
  if (c?.method !== "open" || !Array.isArray(c.args) || c.args.length !== 2) return null;
  const [path, o] = c.args as [unknown, Record<string, unknown> | null];
  if (typeof path !== "string" || typeof o !== "object" || o === null) return null;
  if (o.read !== true || o.write || o.create || o.exclusive || o.truncate || o.directory) {
    return null;
  }
  return JSON.stringify([path, o.nofollow === true]);
}

/** What a kept file's stat was, and where it is on the host. */
interface Kept {
  host: string;
  follow: boolean;
  seen: Signature;
}

/** What tells one unchanged file from another, or from itself changed. */
interface Signature {
  ino: number | null;
  dev: number;
  size: number;
  nlink: number | null;
  mode: number | null;
  mtime: number | undefined;
  ctime: number | undefined;
}

function signature(info: Deno.FileInfo): Signature {
  return {
    ino: info.ino,
    dev: info.dev,
    size: info.size,
    nlink: info.nlink,
    mode: info.mode,
    mtime: info.mtime?.getTime(),
    ctime: info.ctime?.getTime(),
  };
}

function same(a: Signature, b: Signature): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.nlink === b.nlink &&
    a.mode === b.mode && a.mtime === b.mtime && a.ctime === b.ctime;
}

/** A path of plain names only (no `.`, `..`, or empty one): the host resolves it as the mount. */
function plain(path: string): boolean {
  return path.length > 0 && path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

/** The files one worker keeps, and the drops it has not been told yet. */
export class KeptFiles {
  /** By key, oldest first. */
  private kept = new Map<string, Kept>();
  /** Dropped here (a change, or room for another), not yet told. */
  private dropped: string[] = [];
  /**
   * Whether the worker may keep files this table does not know: a message
   * to it was lost, or it is new to this table (a worker taken again after
   * a loss the worker did not notice may still keep what it kept before).
   */
  private unknown = true;

  /** The world folder on the host (none: no file is kept). */
  private folder: string | null;

  /**
   * @param world `/` of remote processes: a `DiskMount` (the world folder),
   * whose files are compared by one `stat` of their host path each (any
   * other mount keeps nothing)
   */
  constructor(world: Mount) {
    this.folder = world instanceof DiskMount ? world.folder : null;
  }

  /** How many files the worker keeps. */
  get size(): number {
    return this.kept.size;
  }

  /**
   * The host path's stat now, or null (gone, refused). The kernel resolves
   * it as the mount does (plain names, links followed): a name that now
   * leads elsewhere (a folder renamed or replaced by a link) finds another
   * file, or none.
   */
  private statNow(host: string, follow: boolean): Signature | null {
    try {
      return signature(follow ? Deno.statSync(host) : Deno.lstatSync(host));
    } catch {
      return null;
    }
  }

  /**
   * Offers a file just read whole for the open of `key`: true when the
   * worker may keep it (its reply says so), false when it changed too
   * recently, or since `seen` was taken.
   *
   * @param seen its stat before its bytes were read
   * @param at when `seen` was taken (ms, `Date.now()`)
   */
  offer(key: string, seen: Stat, at: number): boolean {
    const [path, nofollow] = JSON.parse(key) as [string, boolean];
    if (this.folder === null || !plain(path)) return false;
    if (seen.type !== "regular-file" || seen.ctime === undefined) return false;
    if (seen.ctime > at - RACY_MS) return false;
    const host = `${this.folder}/${path}`;
    const now = this.statNow(host, !nofollow);
    // The file read, unchanged since its stat (a change would have moved its change time).
    if (!now?.ino || BigInt(now.ino) !== seen.ino || now.size !== seen.size) return false;
    if (now.ctime !== seen.ctime || now.nlink !== seen.nlink) return false;
    this.kept.delete(key);
    this.kept.set(key, { host, follow: !nofollow, seen: now });
    for (const [old] of this.kept) {
      if (this.kept.size <= KEPT_FILES_MAX) break;
      this.kept.delete(old);
      this.dropped.push(old);
    }
    return true;
  }

  /**
   * Compares every kept file with its path now: what changed is dropped.
   * Returns what the worker must drop before anything else it is told:
   * keys, or "all" the first time and after a lost message; null when
   * nothing.
   */
  check(): string[] | "all" | null {
    for (const [key, k] of this.kept) {
      const now = this.statNow(k.host, k.follow);
      if (now && same(now, k.seen)) continue;
      this.kept.delete(key);
      this.dropped.push(key);
    }
    if (this.unknown) {
      this.unknown = false;
      this.dropped = [];
      return "all";
    }
    if (this.dropped.length === 0) return null;
    const keys = this.dropped;
    this.dropped = [];
    return keys;
  }

  /**
   * A message to the worker was lost (NATS would not take it): it may keep
   * files, or fail to drop some, that this table does not know; it drops
   * them all first at the next message.
   */
  lost(): void {
    this.kept.clear();
    this.unknown = true;
  }

  /** Forgets every file (the worker was lost). */
  clear(): void {
    this.kept.clear();
    this.dropped = [];
    this.unknown = false;
  }
}
