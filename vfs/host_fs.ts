/**
 * The filesystem as a process sees it, for the host side (`sausage ls`,
 * `sausage cat`, later the console): `/proc` and `/run` of the host and the
 * world folder for everything else. There is no `/self` outside a process.
 *
 * @module
 */

import {
  type DirEntry,
  FsError,
  type Mount,
  READ_ONLY,
  resolveGuestPath,
  type Stat,
} from "./mount.ts";
import { toFsError } from "./errno.ts";

/** A file or folder found by `HostFs.list`. */
export interface Listing {
  path: string;
  stat: Stat;
  entries?: DirEntry[];
}

/** The host's view of the four preopens. */
export class HostFs {
  /**
   * @param mounts the world mount at "/", and the virtual ones by their path ("/proc", "/run")
   */
  constructor(private mounts: Record<string, Mount>) {}

  /** Finds the mount of an absolute guest path (the longest preopen prefix) and the checked path under it. */
  resolve(path: string): { mount: Mount; rel: string } {
    if (!path.startsWith("/")) throw new FsError("invalid", `paths start with /: ${path}`);
    const prefixes = Object.keys(this.mounts).sort((a, b) => b.length - a.length);
    for (const prefix of prefixes) {
      if (prefix === "/" || path === prefix || path.startsWith(prefix + "/")) {
        const rest = prefix === "/" ? path.slice(1) : path.slice(prefix.length + 1);
        return { mount: this.mounts[prefix], rel: resolveGuestPath("", rest) };
      }
    }
    throw new FsError("no-entry");
  }

  /** The stat of a path, and its entries when it is a folder (with the preopens that live under it). */
  async list(path: string): Promise<Listing> {
    try {
      const { mount, rel } = this.resolve(path);
      const stat = await mount.stat(rel, true);
      if (stat.type !== "directory") return { path, stat };
      const entries = await mount.readDir(rel);
      if (path === "/") {
        for (const p of Object.keys(this.mounts)) {
          const name = p.slice(1);
          if (name && !entries.some((e) => e.name === name)) {
            entries.push({ name, type: "directory" });
          }
        }
        entries.sort((a, b) => (a.name < b.name ? -1 : 1));
      }
      return { path, stat, entries };
    } catch (e) {
      throw toFsError(e);
    }
  }

  /** The whole content of a file. */
  async read(path: string): Promise<Uint8Array> {
    try {
      const { mount, rel } = this.resolve(path);
      const h = await mount.open(rel, READ_ONLY);
      if (!h) throw new FsError("is-directory", `${path} is a folder`);
      try {
        const chunks: Uint8Array[] = [];
        let offset = 0;
        for (;;) {
          const b = await h.read(1 << 20, offset);
          if (b.length === 0) break;
          chunks.push(b);
          offset += b.length;
        }
        const out = new Uint8Array(offset);
        let at = 0;
        for (const c of chunks) (out.set(c, at), at += c.length);
        return out;
      } finally {
        h.close();
      }
    } catch (e) {
      throw toFsError(e);
    }
  }
}
