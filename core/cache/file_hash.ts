/**
 * SHA-256 of files, remembered by the file's identity (path, inode, size,
 * mtime), so that code on a call's path never reads and hashes a whole
 * component again. An activation renames a new file into place and a copy by
 * hand changes the mtime: either way the identity changes.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { sha256 } from "./sha256.ts";

/** `sha256` (`sha256.ts`), synchronous, for a short text (a path) where no `await` fits. */
export function sha256Sync(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** File hashes by identity. */
export class FileHashes {
  private byIdentity = new Map<string, Promise<string>>();

  /**
   * The hash of the file at `path` now: one `stat` (or `info`, from a `stat`
   * of it made just before), and a read only for a
   * file not seen before. The `stat` is synchronous: it is on every call's
   * path, and an async one costs a trip through Deno's thread pool (136 µs
   * against 17 µs here).
   */
  async hash(path: string, info: Deno.FileInfo = Deno.statSync(path)): Promise<string> {
    const identity = `${path}\n${info.ino}\n${info.size}\n${info.mtime?.getTime()}`;
    let hash = this.byIdentity.get(identity);
    if (!hash) {
      hash = Deno.readFile(path).then(sha256);
      this.byIdentity.set(identity, hash);
      hash.catch(() => this.byIdentity.delete(identity));
    }
    return await hash;
  }
}
