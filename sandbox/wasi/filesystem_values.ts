/**
 * The values of `wasi:filesystem/types` as the glue passes them (flags,
 * timestamps, stats, metadata hashes), their conversions from and to the
 * mounts' values, and the rule for a guest path's trailing slash.
 *
 * @module
 */

import { type Instant, instantOfMs, type Stat } from "../../vfs/mount.ts";
import { toFsError } from "../../vfs/errno.ts";
import { HostError } from "../../rpc/errors.ts";

/** A WIT `datetime`. */
export type Datetime = { seconds: bigint; nanoseconds: number };
/** A WIT `new-timestamp`. */
export type NewTimestamp = { tag: "no-change" } | { tag: "now" } | {
  tag: "timestamp";
  val: Datetime;
};
/** WIT `path-flags`. */
export type PathFlags = { symlinkFollow?: boolean };
/** WIT `open-flags`. */
export type OpenFlags = {
  create?: boolean;
  directory?: boolean;
  exclusive?: boolean;
  truncate?: boolean;
};
/** WIT `descriptor-flags`. */
export type DescriptorFlags = {
  read?: boolean;
  write?: boolean;
  mutateDirectory?: boolean;
  fileIntegritySync?: boolean;
  dataIntegritySync?: boolean;
  requestedWriteSync?: boolean;
};

/** Whole milliseconds and the nanoseconds past them as a WIT `datetime`. */
export function datetime(ms: number | undefined, ns = 0): Datetime | undefined {
  if (ms === undefined) return undefined;
  const s = Math.floor(ms / 1000);
  return { seconds: BigInt(s), nanoseconds: Math.round((ms - s * 1000) * 1e6) + ns };
}

/** A WIT timestamp as an instant, to the nanosecond (null: no change). */
export function toInstant(t: NewTimestamp): Instant | null {
  if (t.tag === "no-change") return null;
  if (t.tag === "now") return instantOfMs(Date.now());
  const ns = BigInt(t.val.seconds) * 1_000_000_000n + BigInt(t.val.nanoseconds);
  const ms = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n);
  return { ms: Number(ms), ns: Number(ns - ms * 1_000_000n) };
}

/** A mount's stat as a WIT `descriptor-stat`. */
export function descriptorStat(s: Stat) {
  return {
    type: s.type,
    linkCount: BigInt(s.nlink),
    size: BigInt(s.size),
    dataAccessTimestamp: datetime(s.atime, s.atimeNs),
    dataModificationTimestamp: datetime(s.mtime, s.mtimeNs),
    statusChangeTimestamp: datetime(s.ctime, s.ctimeNs),
  };
}

/**
 * True when a guest path ends with a slash after a name (`a/`, `a//`): as
 * in POSIX, it then names a folder (a link to one is followed) or nothing.
 */
export function trailingSlash(path: string): boolean {
  return path.endsWith("/") && /[^/]/.test(path);
}

/**
 * Runs a mount operation; a failure becomes `{payload: error-code}` for the
 * glue, except a host fault, which is thrown on (the process traps).
 */
export async function guard<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw guestError(e);
  }
}

/** What a failed operation throws to the guest: its error-code, or a host fault as it is. */
export function guestError(e: unknown): HostError | { payload: string } {
  return e instanceof HostError ? e : { payload: toFsError(e).code };
}

/** A WIT `metadata-hash-value` of a file's identity, time and size. */
export function hashOf(s: Stat): { lower: bigint; upper: bigint } {
  return { lower: s.ino, upper: BigInt(Math.round(s.mtime ?? 0)) ^ (BigInt(s.size) << 20n) };
}
