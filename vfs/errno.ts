/**
 * The one table that maps host filesystem errors (errno names from Deno) to
 * WIT `error-code` names.
 *
 * @module
 */

import { FsError } from "./mount.ts";

const TABLE: Record<string, string> = {
  ENOENT: "no-entry",
  EEXIST: "exist",
  EACCES: "access",
  EPERM: "not-permitted",
  ENOTDIR: "not-directory",
  EISDIR: "is-directory",
  ENOTEMPTY: "not-empty",
  ELOOP: "loop",
  EINVAL: "invalid",
  EXDEV: "cross-device",
  ENAMETOOLONG: "name-too-long",
  EBADF: "bad-descriptor",
  EBUSY: "busy",
  ENOSPC: "insufficient-space",
  EROFS: "read-only",
  EMLINK: "too-many-links",
  EFBIG: "file-too-large",
  EIO: "io",
};

/**
 * The `FsError` that `e` stands for: itself, or a host filesystem error (an
 * errno from Deno) by the table; null for anything else (a fault, not an
 * errno).
 */
export function fsErrorOf(e: unknown): FsError | null {
  if (e instanceof FsError) return e;
  if (!(e instanceof Error)) return null;
  const code = "code" in e && typeof e.code === "string" ? TABLE[e.code] : undefined;
  if (code) return new FsError(code, e.message);
  if (e instanceof Deno.errors.NotFound) return new FsError("no-entry");
  if (e instanceof Deno.errors.AlreadyExists) return new FsError("exist");
  if (e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable) {
    return new FsError("access");
  }
  if (e instanceof Deno.errors.NotADirectory) return new FsError("not-directory");
  if (e instanceof Deno.errors.IsADirectory) return new FsError("is-directory");
  return null;
}

/** Converts any error from a host filesystem call into an `FsError` (`io` when it is no errno). */
export function toFsError(e: unknown): FsError {
  return fsErrorOf(e) ?? new FsError("io", e instanceof Error ? e.message : String(e));
}
