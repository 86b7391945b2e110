/**
 * The world folder as a mount: real files on disk, confined to the folder.
 *
 * Every path is resolved component by component with `lstat`, following
 * symlinks only while they stay inside the root; an absolute symlink, or one
 * that climbs out, fails with `not-permitted`. After an open, the handle's
 * inode is compared with the one seen during resolution, so a symlink swapped
 * in between the check and the open is caught (`access`).
 *
 * Every operation that writes (create, write, truncate, mkdir, unlink,
 * rename, symlink, set-times) runs inside the folder it changes with
 * `inFolder`, on a bare name, so a folder swapped for a link after the check
 * cannot lead it outside. A new file is created with `O_EXCL`, which never
 * follows a link; an existing one is opened without `O_CREAT`, checked, and
 * only then truncated.
 *
 * The core's own files and the owner's are read-only to guests: writes
 * under a protected folder (`state/core/` of a world: the journal,
 * `host.json`; `config/`: the limits and every file that sets what guests may
 * do), and renames or deletions of the folders above it, fail with
 * `read-only`, as writes to `/proc` do.
 *
 * Only regular files open: a FIFO, a socket or a device (which a build may
 * have left) fails with `not-permitted` before any open, so no read or write
 * waits for a peer; the handle opened is checked again to be the regular file
 * resolved.
 *
 * With a disk bound (`disk_mib`, `vfs/disk_budget.ts`) a write that would
 * take the world past it fails with `insufficient-space`.
 *
 * @module
 */

import {
  type DirEntry,
  type FileHandle,
  FsError,
  type Instant,
  type Mount,
  type OpenOptions,
  resolveGuestPath,
  type Stat,
} from "./mount.ts";
/**
 * `lutimes` from `node:fs`, loaded at the first time change that does not
 * follow links: the first `node:` module costs a process ~50 ms (Node
 * compatibility starts), which every sandbox start would otherwise pay.
 */
let lutimesSync: ((path: string, atime: number, mtime: number) => void) | undefined;
import { toFsError } from "./errno.ts";
import { inFolder, relativeTo, splitPath } from "./confined_dir.ts";
import { SubMillis } from "./sub_millis.ts";
import { DiskFile, toStat } from "./disk_file.ts";
import type { DiskBudget } from "./disk_budget.ts";

/** The folders of a world that guests may read but not change: the core's, and the owner's. */
export const CORE_FOLDERS = ["state/core", "config"];

/** Who a protected folder belongs to, for the error. */
function ownerOf(folder: string): string {
  return folder === "config" ? "the world's owner" : "the core";
}

/** Fails with `not-permitted` unless `info` is a regular file (a FIFO would block the open). */
function regularOnly(info: Deno.FileInfo, path: string): void {
  if (info.isFile || info.isDirectory || info.isSymlink) return;
  const kind = info.isFifo
    ? "a FIFO"
    : info.isSocket
    ? "a socket"
    : info.isCharDevice || info.isBlockDevice
    ? "a device"
    : "not a regular file";
  throw new FsError("not-permitted", `${path} is ${kind}: only regular files open`);
}

const MAX_LINKS = 40;

/** A resolved path: the absolute host path and what lstat saw there (null: does not exist). */
interface Resolved {
  host: string;
  info: Deno.FileInfo | null;
}

/** Options of a {@link DiskMount}. */
export interface DiskMountOptions {
  /** Root-relative folders that guests may read but not change (default {@link CORE_FOLDERS}). */
  protect?: string[];
  /** The disk bound that guests' writes count against (none: only the disk's own). */
  budget?: DiskBudget;
}

/** A mount of a host folder; nothing outside it is reachable. */
export class DiskMount implements Mount {
  readonly writable = true;
  private root: string;
  private protect: string[];
  private budget?: DiskBudget;
  /** The nanoseconds of times that guests set (the disk keeps milliseconds). */
  private subMillis = new SubMillis();

  /** The host folder, its real path. */
  get folder(): string {
    return this.root;
  }

  /** @param root the host folder; it must exist */
  constructor(root: string, opts: DiskMountOptions = {}) {
    this.root = Deno.realPathSync(root);
    this.protect = opts.protect ?? CORE_FOLDERS;
    this.budget = opts.budget;
  }

  /** Fails with `read-only` when the root-relative `rel` is in a protected folder (or, with `above`, one of its parents). */
  private guard(rel: string, above = false): void {
    for (const p of this.protect) {
      if (
        rel === p || rel.startsWith(p + "/") || (above && (rel === "" || p.startsWith(rel + "/")))
      ) {
        throw new FsError("read-only", `/${p} belongs to ${ownerOf(p)}`);
      }
    }
  }

  /**
   * Runs `f` in the parent folder of the host path `host` (see
   * `inFolder`), with the entry's bare name, after checking that the entry
   * is not protected.
   */
  private atParent<T>(host: string, f: (name: string, dir: string) => T, above = false): T {
    const { dir, name } = splitPath(host);
    return inFolder(this.root, dir, (rel) => {
      this.guard(rel === "" ? name : `${rel}/${name}`, above);
      return f(name, rel);
    });
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
    return this.run(() => toStat(this.existing(path, follow).info, this.subMillis));
  }

  open(path: string, opts: OpenOptions): FileHandle | null {
    return this.run(() => {
      const r = this.resolve(path, !opts.nofollow);
      if (r.info !== null && opts.create && opts.exclusive) throw new FsError("exist");
      if (r.info?.isSymlink) throw new FsError("loop", `${path} is a symlink`);
      if (r.info) regularOnly(r.info, path);
      if (opts.directory || r.info?.isDirectory) {
        if (r.info === null) throw new FsError("no-entry");
        if (!r.info.isDirectory) throw new FsError("not-directory");
        if (opts.write || opts.truncate) throw new FsError("is-directory");
        return null;
      }
      if (r.info === null && !opts.create) throw new FsError("no-entry", `${path} does not exist`);
      if (!opts.write && !opts.truncate && !opts.create) return this.openExisting(path, r);
      return this.openForWrite(path, r, opts);
    });
  }

  /** Opens an existing file for reading and checks that it is the file resolved. */
  private openExisting(path: string, r: Resolved): FileHandle {
    const file = Deno.openSync(r.host, { read: true });
    const seen = file.statSync();
    if (!seen.isFile || seen.ino !== r.info!.ino || seen.dev !== r.info!.dev) {
      file.close();
      throw new FsError("access", `${path} changed while it was opened`);
    }
    return new DiskFile(file, this.subMillis);
  }

  /**
   * Opens a file that may be written, in its folder: an existing one without
   * `O_CREAT` (then compared with what `lstat` sees under its name, so a
   * link swapped in fails before anything is written), a new one with
   * `O_EXCL`; truncates only after the check.
   */
  private openForWrite(path: string, r: Resolved, opts: OpenOptions): FileHandle {
    return this.atParent(r.host, (name) => {
      for (let attempt = 0;; attempt++) {
        let file: Deno.FsFile;
        const found = (() => {
          try {
            return Deno.lstatSync(name);
          } catch {
            return null;
          }
        })();
        const exists = found !== null;
        // A FIFO would block the open until a peer came.
        if (found) regularOnly(found, path);
        try {
          file = exists
            ? Deno.openSync(name, { read: opts.read || !opts.write, write: opts.write })
            : Deno.openSync(name, { read: opts.read, write: true, createNew: true });
        } catch (e) {
          // Created or removed by someone else between the lstat and the open: look again.
          const raced = exists
            ? e instanceof Deno.errors.NotFound && opts.create
            : e instanceof Deno.errors.AlreadyExists && !opts.exclusive;
          if (raced && attempt < 3) continue;
          throw e;
        }
        const seen = file.statSync();
        let named: Deno.FileInfo | null = null;
        try {
          named = Deno.lstatSync(name);
        } catch { /* gone */ }
        if (!named || !named.isFile || seen.ino !== named.ino || seen.dev !== named.dev) {
          file.close();
          throw new FsError("access", `${path} changed while it was opened`);
        }
        if (opts.truncate) {
          file.truncateSync(0);
          this.budget?.shrink(seen.size);
        }
        return new DiskFile(file, this.subMillis, this.budget, opts.truncate ? 0 : seen.size);
      }
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
      this.atParent(r.host, (name) => {
        this.budget?.folder();
        Deno.mkdirSync(name);
      });
    });
  }

  rmdir(path: string): void {
    this.run(() => {
      const r = this.existing(path, false);
      if (!r.info.isDirectory) throw new FsError("not-directory");
      if (r.host === this.root) throw new FsError("busy");
      this.atParent(r.host, (name) => {
        if (!Deno.lstatSync(name).isDirectory) throw new FsError("not-directory");
        Deno.removeSync(name);
      }, true);
    });
  }

  unlink(path: string): void {
    this.run(() => {
      const r = this.existing(path, false);
      if (r.info.isDirectory) throw new FsError("is-directory");
      this.atParent(r.host, (name) => {
        const gone = Deno.lstatSync(name);
        if (gone.isDirectory) throw new FsError("is-directory");
        Deno.removeSync(name);
        if (gone.isFile && (gone.nlink ?? 1) <= 1) this.budget?.shrink(gone.size);
      });
    });
  }

  /**
   * Renames inside the folder of `to` (so the destination cannot be led
   * outside); the source is checked by inode before and after, and a rename
   * that moved something else (a link swapped in on the source's way) is
   * undone and fails.
   */
  rename(from: string, to: string): void {
    this.run(() => {
      const a = this.existing(from, false);
      const b = this.resolve(to, false);
      const src = relativeTo(this.root, a.host);
      if (src === null) throw new FsError("not-permitted", `${from} leaves the world folder`);
      this.guard(src, true);
      const link = a.info.isSymlink ? Deno.readLinkSync(a.host) : null;
      this.atParent(b.host, (name, dir) => {
        // A link keeps its target text: where it points from its new folder must stay inside.
        if (link !== null) this.checkLinkTarget(link, dir, from);
        this.unlessChanged(a.info, a.host, name, `${from} changed while it was renamed`, {
          make: () => Deno.renameSync(a.host, name),
          undo: () => Deno.renameSync(name, a.host), // left in the world if it fails
        });
      }, b.info?.isDirectory === true);
    });
  }

  symlink(target: string, path: string): void {
    this.run(() => {
      if (target.startsWith("/")) {
        throw new FsError("not-permitted", "symlinks to absolute paths leave the world");
      }
      const r = this.resolve(path, false);
      if (r.info !== null) throw new FsError("exist");
      this.atParent(r.host, (name, dir) => {
        // A relative target that climbs above the root would lead outside.
        resolveGuestPath(dir, target);
        Deno.symlinkSync(target, name);
      });
    });
  }

  /**
   * Makes a hard link in the folder of `to`; the source is checked by inode
   * before and after (a link that caught something else is removed), may
   * not be a folder or a core file, and a symlink keeps its target text, so
   * where it points from its new folder must stay inside.
   */
  link(from: string, to: string, follow: boolean): void {
    this.run(() => {
      const a = this.existing(from, follow);
      if (a.info.isDirectory) throw new FsError("not-permitted", `${from} is a folder`);
      const src = relativeTo(this.root, a.host);
      if (src === null) throw new FsError("not-permitted", `${from} leaves the world folder`);
      this.guard(src);
      const b = this.resolve(to, false);
      if (b.info !== null) throw new FsError("exist");
      const link = a.info.isSymlink ? Deno.readLinkSync(a.host) : null;
      this.atParent(b.host, (name, dir) => {
        if (link !== null) this.checkLinkTarget(link, dir, from);
        this.unlessChanged(a.info, a.host, name, `${from} changed while it was linked`, {
          make: () => Deno.linkSync(a.host, name),
          undo: () => Deno.removeSync(name),
        });
      });
    });
  }

  /**
   * Makes `name` (in the current folder) from the source at `host` only while
   * `host` is still the file `info` describes, compared by inode before; when
   * `name` is something else after (a link swapped in on the way), undoes it.
   * Either way it fails with `access` and `message`.
   */
  private unlessChanged(
    info: Deno.FileInfo,
    host: string,
    name: string,
    message: string,
    step: { make(): void; undo(): void },
  ): void {
    const changed = (now: Deno.FileInfo) => now.ino !== info.ino || now.dev !== info.dev;
    if (changed(Deno.lstatSync(host))) throw new FsError("access", message);
    step.make();
    if (changed(Deno.lstatSync(name))) {
      try {
        step.undo();
      } catch { /* left in the world: it is no longer outside, or gone already */ }
      throw new FsError("access", message);
    }
  }

  /** Fails unless the symlink text `link`, read from the root-relative folder `dir`, stays inside. */
  private checkLinkTarget(link: string, dir: string, what: string): void {
    if (link.startsWith("/")) {
      throw new FsError("not-permitted", `${what}: symlink to an absolute path`);
    }
    resolveGuestPath(dir, link);
  }

  readlink(path: string): string {
    return this.run(() => {
      const r = this.existing(path, false);
      if (!r.info.isSymlink) throw new FsError("invalid");
      return Deno.readLinkSync(r.host);
    });
  }

  setTimes(
    path: string,
    atime: Instant | null,
    mtime: Instant | null,
    follow: boolean,
  ): void | Promise<void> {
    if (!follow && !lutimesSync) {
      return import("node:fs").then((fs) => {
        lutimesSync = fs.lutimesSync;
        return this.setTimes(path, atime, mtime, follow);
      });
    }
    this.run(() => {
      const r = this.existing(path, follow);
      const a = atime?.ms ?? r.info.atime?.getTime() ?? Date.now();
      const m = mtime?.ms ?? r.info.mtime?.getTime() ?? Date.now();
      const set = (name: string) => {
        // Deno.utime follows links; the link itself needs lutimes (seconds, to the millisecond).
        if (r.info.isSymlink) lutimesSync!(name, a / 1000, m / 1000);
        else Deno.utimeSync(name, new Date(a), new Date(m));
        this.subMillis.remember(Deno.lstatSync(name), atime, mtime);
      };
      if (r.host === this.root) return set(r.host);
      this.atParent(r.host, (name) => {
        if (Deno.lstatSync(name).ino !== r.info.ino) {
          throw new FsError("access", `${path} changed while its times were set`);
        }
        set(name);
      });
    });
  }
}
