/**
 * The world folder as a mount: real files on disk, confined to the folder.
 *
 * Every path is resolved component by component with `lstat`, following
 * symlinks only while they stay inside the root; an absolute symlink, or one
 * that climbs out, fails with `not-permitted`. After an open, the handle's
 * inode is compared with the one seen during resolution, so a symlink swapped
 * in between the check and the open is caught (`access`).
 *
 * @module
 */

import {
  type DirEntry,
  type FileHandle,
  type FileType,
  FsError,
  type Mount,
  type OpenOptions,
  type Stat,
} from "./mount.ts";
import { toFsError } from "./errno.ts";

const MAX_LINKS = 40;

function fileType(info: Deno.FileInfo): FileType {
  if (info.isSymlink) return "symbolic-link";
  if (info.isDirectory) return "directory";
  if (info.isFile) return "regular-file";
  return "unknown";
}

function toStat(info: Deno.FileInfo): Stat {
  return {
    type: fileType(info),
    size: info.size,
    nlink: info.nlink ?? 1,
    mtime: info.mtime?.getTime(),
    atime: info.atime?.getTime(),
    ctime: info.ctime?.getTime() ?? info.birthtime?.getTime(),
    ino: BigInt(info.ino ?? 0),
  };
}

/** A resolved path: the absolute host path and what lstat saw there (null: does not exist). */
interface Resolved {
  host: string;
  info: Deno.FileInfo | null;
}

class DiskFile implements FileHandle {
  constructor(private file: Deno.FsFile) {}
  read(len: number, offset: number): Uint8Array {
    const buf = new Uint8Array(len);
    this.file.seekSync(offset, Deno.SeekMode.Start);
    let n = 0;
    while (n < len) {
      const got = this.file.readSync(buf.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  }
  write(bytes: Uint8Array, offset: number): number {
    this.file.seekSync(offset, Deno.SeekMode.Start);
    let n = 0;
    while (n < bytes.length) n += this.file.writeSync(bytes.subarray(n));
    return n;
  }
  size(): number {
    return this.file.statSync().size;
  }
  stat(): Stat {
    return toStat(this.file.statSync());
  }
  truncate(size: number): void {
    this.file.truncateSync(size);
  }
  sync(): void {
    this.file.syncSync();
  }
  close(): void {
    try {
      this.file.close();
    } catch { /* already closed */ }
  }
}

/** A mount of a host folder; nothing outside it is reachable. */
export class DiskMount implements Mount {
  readonly writable = true;
  private root: string;

  /** @param root the host folder; it must exist */
  constructor(root: string) {
    this.root = Deno.realPathSync(root);
  }

  /**
   * Resolves a mount-relative path to a host path inside the root. With
   * `followLast` false, a symlink in the last component is not followed.
   */
  private resolve(path: string, followLast: boolean): Resolved {
    const pending = path === "" ? [] : path.split("/");
    const done: string[] = [];
    let links = 0;
    let info: Deno.FileInfo | null = null;
    while (pending.length > 0) {
      const seg = pending.shift()!;
      if (seg === "" || seg === ".") continue;
      if (seg === "..") {
        if (done.length === 0) {
          throw new FsError("not-permitted", `${path} leaves the world folder`);
        }
        done.pop();
        info = null;
        continue;
      }
      const host = `${this.root}/${[...done, seg].join("/")}`;
      try {
        info = Deno.lstatSync(host);
      } catch (e) {
        const err = toFsError(e);
        if (err.code === "no-entry" && pending.length === 0) return { host, info: null };
        throw err;
      }
      if (info.isSymlink && (pending.length > 0 || followLast)) {
        if (++links > MAX_LINKS) throw new FsError("loop");
        const target = Deno.readLinkSync(host);
        if (target.startsWith("/")) {
          throw new FsError("not-permitted", `${path}: symlink to an absolute path`);
        }
        pending.unshift(...target.split("/"));
        continue;
      }
      if (pending.length > 0 && !info.isDirectory) throw new FsError("not-directory");
      done.push(seg);
    }
    const host = done.length === 0 ? this.root : `${this.root}/${done.join("/")}`;
    if (done.length === 0) info = Deno.lstatSync(this.root);
    return { host, info };
  }

  private existing(path: string, follow: boolean): Resolved & { info: Deno.FileInfo } {
    const r = this.resolve(path, follow);
    if (r.info === null) throw new FsError("no-entry", `${path} does not exist`);
    return r as Resolved & { info: Deno.FileInfo };
  }

  private run<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw toFsError(e);
    }
  }

  stat(path: string, follow: boolean): Stat {
    return this.run(() => toStat(this.existing(path, follow).info));
  }

  open(path: string, opts: OpenOptions): FileHandle | null {
    return this.run(() => {
      const r = this.resolve(path, true);
      if (r.info !== null && opts.create && opts.exclusive) throw new FsError("exist");
      if (opts.directory || r.info?.isDirectory) {
        if (r.info === null) throw new FsError("no-entry");
        if (!r.info.isDirectory) throw new FsError("not-directory");
        if (opts.write || opts.truncate) throw new FsError("is-directory");
        return null;
      }
      if (r.info === null && !opts.create) throw new FsError("no-entry", `${path} does not exist`);
      const file = Deno.openSync(r.host, {
        read: opts.read || !opts.write,
        write: opts.write,
        create: opts.create,
        createNew: opts.create && opts.exclusive,
        truncate: opts.truncate,
      });
      const seen = file.statSync();
      const expected = r.info ?? Deno.lstatSync(r.host);
      if (seen.ino !== expected.ino || seen.dev !== expected.dev) {
        file.close();
        throw new FsError("access", `${path} changed while it was opened`);
      }
      return new DiskFile(file);
    });
  }

  readDir(path: string): DirEntry[] {
    return this.run(() => {
      const r = this.existing(path, true);
      const out: DirEntry[] = [];
      for (const e of Deno.readDirSync(r.host)) {
        out.push({
          name: e.name,
          type: e.isSymlink
            ? "symbolic-link"
            : e.isDirectory
            ? "directory"
            : e.isFile
            ? "regular-file"
            : "unknown",
        });
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    });
  }

  mkdir(path: string): void {
    this.run(() => {
      const r = this.resolve(path, false);
      if (r.info !== null) throw new FsError("exist");
      Deno.mkdirSync(r.host);
    });
  }

  rmdir(path: string): void {
    this.run(() => {
      const r = this.existing(path, false);
      if (!r.info.isDirectory) throw new FsError("not-directory");
      if (r.host === this.root) throw new FsError("busy");
      Deno.removeSync(r.host);
    });
  }

  unlink(path: string): void {
    this.run(() => {
      const r = this.existing(path, false);
      if (r.info.isDirectory) throw new FsError("is-directory");
      Deno.removeSync(r.host);
    });
  }

  rename(from: string, to: string): void {
    this.run(() => {
      const a = this.existing(from, false);
      const b = this.resolve(to, false);
      Deno.renameSync(a.host, b.host);
    });
  }

  symlink(target: string, path: string): void {
    this.run(() => {
      if (target.startsWith("/")) {
        throw new FsError("not-permitted", "symlinks to absolute paths leave the world");
      }
      const r = this.resolve(path, false);
      if (r.info !== null) throw new FsError("exist");
      Deno.symlinkSync(target, r.host);
    });
  }

  readlink(path: string): string {
    return this.run(() => {
      const r = this.existing(path, false);
      if (!r.info.isSymlink) throw new FsError("invalid");
      return Deno.readLinkSync(r.host);
    });
  }

  setTimes(path: string, atime: number | null, mtime: number | null, follow: boolean): void {
    this.run(() => {
      const r = this.existing(path, follow);
      const a = atime ?? r.info.atime?.getTime() ?? Date.now();
      const m = mtime ?? r.info.mtime?.getTime() ?? Date.now();
      Deno.utimeSync(r.host, new Date(a), new Date(m));
    });
  }
}
