/**
 * Reads a file the core needs (through `core/world/world_files.ts`) without ever
 * waiting on it: only a regular file is opened (a FIFO, socket or device
 * that a build left in its place is opened without waiting and refused,
 * where a plain open would block the host's main thread until a writer
 * came).
 *
 * Node's `fs` is used for its open flags (Deno's `open` has no
 * `O_NONBLOCK`), taken on the first read (`process.getBuiltinModule`), not
 * imported: the host loads Node compatibility anyway (`node:sqlite`), but a
 * client that only names the world (`sausage call`) would pay ~40 ms to
 * start Deno's Node layer for nothing.
 *
 * @module
 */

import type NodeFs from "node:fs";

let nodeFs: typeof NodeFs | undefined;

/** Node's `fs`, loaded on first use. */
function fsModule(): typeof NodeFs {
  return nodeFs ??= process.getBuiltinModule("node:fs");
}

/** Thrown for a path that exists but is not a regular file. */
export class NotRegularFile extends Error {
  /** @param path the file asked for */
  constructor(path: string, kind: string) {
    super(`${path} is ${kind}, not a regular file: refused`);
    this.name = "NotRegularFile";
  }
}

/** What `info` is, in words, when it is not a regular file. */
function kindOf(info: NodeFs.Stats): string {
  if (info.isDirectory()) return "a folder";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}

/**
 * The bytes of the regular file `path` (a bare name inside the folder the
 * caller stands in, or any path). The open is non-blocking (`O_NONBLOCK`: a
 * FIFO opens at once instead of waiting for a writer) and what it opened is
 * checked with `fstat`: it must be a regular file, and, when `expect` is
 * given, that very file (device and inode), so nothing swapped in after the
 * caller's own check is read or waited on. Throws {@link NotRegularFile} for
 * anything else, `Deno.errors.NotFound` for a missing file, and the OS error
 * otherwise.
 */
export function readRegularBytes(
  path: string,
  expect?: { dev: number; ino: number | null },
): Uint8Array {
  const fs = fsModule();
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") throw new Deno.errors.NotFound(path);
    throw e;
  }
  try {
    const info = fs.fstatSync(fd);
    if (!info.isFile()) throw new NotRegularFile(path, kindOf(info));
    if (expect && (info.dev !== expect.dev || info.ino !== expect.ino)) {
      throw new NotRegularFile(path, "another file than the one checked");
    }
    const chunks: Uint8Array[] = [];
    for (;;) {
      const buf = new Uint8Array(Math.max(4096, Math.min(info.size + 1, 1 << 20)));
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      chunks.push(buf.subarray(0, n));
    }
    const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
    let at = 0;
    for (const c of chunks) (out.set(c, at), at += c.length);
    return out;
  } finally {
    fs.closeSync(fd);
  }
}
