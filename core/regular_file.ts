/**
 * Reads a small file the core needs (a world's `config/*.json`) without ever
 * waiting on it: only a regular file is opened (a FIFO, socket or device
 * that a build left in its place is refused before the open, which would
 * otherwise block the host's main thread until a writer came), and the file
 * opened is checked to be the one `stat` saw.
 *
 * @module
 */

/** Thrown for a path that exists but is not a regular file. */
export class NotRegularFile extends Error {
  /** @param path the file asked for */
  constructor(path: string, kind: string) {
    super(`${path} is ${kind}, not a regular file: refused`);
    this.name = "NotRegularFile";
  }
}

/** What `info` is, in words, when it is not a regular file. */
function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  return "a special file";
}

/**
 * The text of the regular file at `path`; null when it does not exist.
 * Throws {@link NotRegularFile} for anything else at that name (a link is
 * followed; where it may lead is the confined reads' concern), and the OS
 * error otherwise.
 */
export function readRegularText(path: string): string | null {
  let named: Deno.FileInfo;
  try {
    named = Deno.statSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  if (!named.isFile) throw new NotRegularFile(path, kindOf(named));
  const file = Deno.openSync(path, { read: true });
  try {
    const seen = file.statSync();
    if (!seen.isFile || seen.ino !== named.ino || seen.dev !== named.dev) {
      throw new NotRegularFile(path, "a file that changed while it was opened");
    }
    const out = new Uint8Array(seen.size);
    let n = 0;
    while (n < out.length) {
      const got = file.readSync(out.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    return new TextDecoder().decode(out.subarray(0, n));
  } finally {
    file.close();
  }
}
