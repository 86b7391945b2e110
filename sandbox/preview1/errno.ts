/**
 * The preview-1 `errno` values, and the one table from a filesystem error
 * (`FsError`'s WIT `error-code` name) to the errno a guest sees, as the
 * preview-1 adapter and wasmtime map them.
 *
 * @module
 */

import { fsErrorOf } from "../../vfs/errno.ts";

/** The `errno` values the binding answers with. */
export const ERRNO = {
  success: 0,
  acces: 2,
  again: 6,
  already: 7,
  badf: 8,
  busy: 10,
  deadlk: 16,
  dquot: 19,
  exist: 20,
  fault: 21,
  fbig: 22,
  ilseq: 25,
  inprogress: 26,
  intr: 27,
  inval: 28,
  io: 29,
  isdir: 31,
  loop: 32,
  mfile: 33,
  mlink: 34,
  msgsize: 35,
  nametoolong: 37,
  nodev: 43,
  noent: 44,
  nolck: 46,
  nomem: 48,
  nospc: 51,
  nosys: 52,
  notdir: 54,
  notempty: 55,
  notrecoverable: 56,
  notsock: 57,
  notsup: 58,
  notty: 59,
  nxio: 60,
  overflow: 61,
  perm: 63,
  pipe: 64,
  rofs: 69,
  spipe: 70,
  txtbsy: 74,
  xdev: 75,
  notcapable: 76,
} as const;

/** WIT `error-code` names to errno. */
const BY_CODE: Record<string, number> = {
  "access": ERRNO.acces,
  "would-block": ERRNO.again,
  "already": ERRNO.already,
  "bad-descriptor": ERRNO.badf,
  "busy": ERRNO.busy,
  "deadlock": ERRNO.deadlk,
  "quota": ERRNO.dquot,
  "exist": ERRNO.exist,
  "file-too-large": ERRNO.fbig,
  "illegal-byte-sequence": ERRNO.ilseq,
  "in-progress": ERRNO.inprogress,
  "interrupted": ERRNO.intr,
  "invalid": ERRNO.inval,
  "io": ERRNO.io,
  "is-directory": ERRNO.isdir,
  "loop": ERRNO.loop,
  "too-many-links": ERRNO.mlink,
  "message-size": ERRNO.msgsize,
  "name-too-long": ERRNO.nametoolong,
  "no-device": ERRNO.nodev,
  "no-entry": ERRNO.noent,
  "no-lock": ERRNO.nolck,
  "insufficient-memory": ERRNO.nomem,
  "insufficient-space": ERRNO.nospc,
  "not-directory": ERRNO.notdir,
  "not-empty": ERRNO.notempty,
  "not-recoverable": ERRNO.notrecoverable,
  "unsupported": ERRNO.notsup,
  "no-tty": ERRNO.notty,
  "no-such-device": ERRNO.nxio,
  "overflow": ERRNO.overflow,
  "not-permitted": ERRNO.perm,
  "pipe": ERRNO.pipe,
  "read-only": ERRNO.rofs,
  "invalid-seek": ERRNO.spipe,
  "text-file-busy": ERRNO.txtbsy,
  "cross-device": ERRNO.xdev,
};

/**
 * Thrown inside the binding to answer a call with an errno; `call` in
 * `binding.ts` turns it into the return value.
 */
export class Errno extends Error {
  /** @param errno the value the guest gets */
  constructor(readonly errno: number) {
    super(`errno ${errno}`);
  }
}

/**
 * The errno for an error a mount or a `Descriptor` threw: an `FsError`, a
 * host errno, or the glue's `{payload: code}`. Anything else (a host fault,
 * a kill, the guest's exit) is thrown on: the process traps or ends.
 */
export function errnoOf(e: unknown): number {
  if (e instanceof Errno) return e.errno;
  if (typeof e === "object" && e !== null && "payload" in e && typeof e.payload === "string") {
    return BY_CODE[e.payload] ?? ERRNO.io;
  }
  const fs = fsErrorOf(e);
  if (fs) return BY_CODE[fs.code] ?? ERRNO.io;
  throw e;
}
