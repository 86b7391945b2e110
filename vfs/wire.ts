/**
 * How mount operations cross the sandbox boundary as JSON: the filesystem
 * methods a process asks the core for, each with its params and its result
 * ({@link FsMethods}), one call as a discriminated union ({@link FsCall}),
 * and the check that turns what arrived from a sandbox into that shape
 * ({@link checkFsCall}). Stats carry their inode as a string (JSON has no
 * bigint), bytes travel as base64.
 *
 * @module
 */

import { type DirEntry, FsError, type Instant, type OpenOptions, type Stat } from "./mount.ts";

/** A stat as it travels. */
export type WireStat = Omit<Stat, "ino"> & { ino: string };

/** Stat → wire. */
export function statToWire(s: Stat): WireStat {
  return { ...s, ino: s.ino.toString() };
}

/** Wire → stat. */
export function statFromWire(s: WireStat): Stat {
  return { ...s, ino: BigInt(s.ino) };
}

/**
 * The filesystem methods of the wire, by name: a `Mount` method, or
 * `h.<method>` of an open handle (its number first). `null` is "done".
 */
export interface FsMethods {
  /** `Mount.stat`. */
  stat: { params: [path: string, follow: boolean]; result: WireStat };
  /** `Mount.open`: the handle's number, or null for a folder opened to be checked. */
  open: { params: [path: string, opts: OpenOptions]; result: number | null };
  /** `Mount.readDir`. */
  readDir: { params: [path: string]; result: DirEntry[] };
  /** `Mount.mkdir`. */
  mkdir: { params: [path: string]; result: null };
  /** `Mount.rmdir`. */
  rmdir: { params: [path: string]; result: null };
  /** `Mount.unlink`. */
  unlink: { params: [path: string]; result: null };
  /** `Mount.rename`. */
  rename: { params: [from: string, to: string]; result: null };
  /** `Mount.symlink`: the only method of `world` and `preopen:…`. */
  symlink: { params: [target: string, path: string]; result: null };
  /** `Mount.link`. */
  link: { params: [from: string, to: string, follow: boolean]; result: null };
  /** `Mount.readlink`. */
  readlink: { params: [path: string]; result: string };
  /** `Mount.setTimes`. */
  setTimes: {
    params: [path: string, atime: Instant | null, mtime: Instant | null, follow: boolean];
    result: null;
  };
  /** `FileHandle.read`: the bytes read, as base64. */
  "h.read": { params: [handle: number, len: number, offset: number]; result: string };
  /** `FileHandle.write` of bytes in base64: the count written. */
  "h.write": { params: [handle: number, base64: string, offset: number]; result: number };
  /** `FileHandle.size`. */
  "h.size": { params: [handle: number]; result: number };
  /** `FileHandle.stat`. */
  "h.stat": { params: [handle: number]; result: WireStat };
  /** `FileHandle.truncate`. */
  "h.truncate": { params: [handle: number, size: number]; result: null };
  /** `FileHandle.close`: the handle's number is free. */
  "h.close": { params: [handle: number]; result: null };
}

/** The name of a filesystem method. */
export type FsMethod = keyof FsMethods;

/** The params of method `M`. */
export type FsParams<M extends FsMethod> = FsMethods[M]["params"];

/** The result of method `M`. */
export type FsResult<M extends FsMethod = FsMethod> = FsMethods[M]["result"];

/** One call: a method and its params, discriminated by `method`. */
export type FsCall<M extends FsMethod = FsMethod> = {
  [K in M]: { method: K; args: FsParams<K> };
}[M];

function invalid(what: string): never {
  throw new FsError("invalid", `a filesystem request with ${what}`);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : invalid(`${JSON.stringify(v)} where a string belongs`);
}

function bool(v: unknown): boolean {
  return typeof v === "boolean" ? v : invalid(`${JSON.stringify(v)} where a boolean belongs`);
}

/** A count, an offset, a size or a handle number. */
function count(v: unknown): number {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  return invalid(`${JSON.stringify(v)} where a whole number belongs`);
}

function base64(v: unknown): string {
  const s = str(v);
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s)
    ? s
    : invalid("bytes not in base64");
}

function record(v: unknown): Record<string, unknown> {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return { ...v };
  return invalid(`${JSON.stringify(v)} where an object belongs`);
}

function instant(v: unknown): Instant | null {
  if (v === null) return null;
  const o = record(v);
  const ns = count(o.ns);
  return ns < 1e6 ? { ms: count(o.ms), ns } : invalid(`${ns} nanoseconds past a millisecond`);
}

function openOptions(v: unknown): OpenOptions {
  const o = record(v);
  const opts: OpenOptions = {
    read: bool(o.read),
    write: bool(o.write),
    create: bool(o.create),
    exclusive: bool(o.exclusive),
    truncate: bool(o.truncate),
    directory: bool(o.directory),
  };
  if (o.nofollow !== undefined) opts.nofollow = bool(o.nofollow);
  return opts;
}

/**
 * Checks a filesystem request from a sandbox (which the core does not
 * trust) into a typed call; anything else fails with `invalid`.
 */
export function checkFsCall(call: unknown): FsCall {
  const { method, args } = record(call);
  if (typeof method !== "string") return invalid("no method name");
  if (!Array.isArray(args)) return invalid("params that are not a list");
  const a = (n: number) =>
    args.length === n ? args : invalid(`${args.length} params for ${method}`);
  switch (method) {
    case "stat":
      return { method, args: [str(a(2)[0]), bool(args[1])] };
    case "open":
      return { method, args: [str(a(2)[0]), openOptions(args[1])] };
    case "readDir":
    case "mkdir":
    case "rmdir":
    case "unlink":
    case "readlink":
      return { method, args: [str(a(1)[0])] };
    case "rename":
    case "symlink":
      return { method, args: [str(a(2)[0]), str(args[1])] };
    case "link":
      return { method, args: [str(a(3)[0]), str(args[1]), bool(args[2])] };
    case "setTimes":
      return { method, args: [str(a(4)[0]), instant(args[1]), instant(args[2]), bool(args[3])] };
    case "h.read":
      return { method, args: [count(a(3)[0]), count(args[1]), count(args[2])] };
    case "h.write":
      return { method, args: [count(a(3)[0]), base64(args[1]), count(args[2])] };
    case "h.size":
    case "h.stat":
    case "h.close":
      return { method, args: [count(a(1)[0])] };
    case "h.truncate":
      return { method, args: [count(a(2)[0]), count(args[1])] };
    default:
      return invalid(`the unknown method ${JSON.stringify(method)}`);
  }
}
