/**
 * An in-memory filesystem: the backend of `/run` (shared by all processes,
 * empty at each host start, never on disk) and of the files a process writes
 * to its `/self`.
 *
 * @module
 */

import {
  type DirEntry,
  type FileHandle,
  FsError,
  type Instant,
  instantOfMs,
  type Mount,
  type OpenOptions,
  resolveGuestPath,
  type Stat,
} from "./mount.ts";

let nextIno = 1n;

const MAX_LINKS = 40;

interface MemFile {
  kind: "file";
  data: Uint8Array;
  size: number;
  ino: bigint;
  /** How many names the file has (hard links). */
  nlink: number;
  mtime: Instant;
  atime: Instant;
}

interface MemDir {
  kind: "dir";
  entries: Map<string, MemNode>;
  ino: bigint;
  mtime: Instant;
  atime: Instant;
}

interface MemLink {
  kind: "link";
  target: string;
  ino: bigint;
  nlink: number;
  mtime: Instant;
  atime: Instant;
}

type MemNode = MemFile | MemDir | MemLink;

function now(): Instant {
  return instantOfMs(Date.now());
}

function newDir(): MemDir {
  const t = now();
  return { kind: "dir", entries: new Map(), ino: nextIno++, mtime: t, atime: t };
}

const TYPES = { dir: "directory", file: "regular-file", link: "symbolic-link" } as const;

function statOf(n: MemNode): Stat {
  return {
    type: TYPES[n.kind],
    size: n.kind === "dir" ? n.entries.size : n.kind === "link" ? n.target.length : n.size,
    nlink: n.kind === "dir" ? 1 : n.nlink,
    mtime: n.mtime.ms,
    atime: n.atime.ms,
    ctime: n.mtime.ms,
    mtimeNs: n.mtime.ns,
    atimeNs: n.atime.ns,
    ctimeNs: n.mtime.ns,
    ino: n.ino,
  };
}

/**
 * Where a path led: the node (undefined when the last name does not exist),
 * the folder that holds that name, the name, and the folder's real path.
 */
interface Found {
  node: MemNode | undefined;
  parent: MemDir | null;
  name: string;
  dirPath: string;
}

class MemHandle implements FileHandle {
  constructor(private f: MemFile) {}
  read(len: number, offset: number): Uint8Array {
    this.f.atime = now();
    if (offset >= this.f.size) return new Uint8Array(0);
    return this.f.data.slice(offset, Math.min(this.f.size, offset + len));
  }
  write(bytes: Uint8Array, offset: number): number {
    const end = offset + bytes.length;
    this.grow(end);
    this.f.data.set(bytes, offset);
    if (end > this.f.size) this.f.size = end;
    this.f.mtime = now();
    return bytes.length;
  }
  size(): number {
    return this.f.size;
  }
  stat(): Stat {
    return statOf(this.f);
  }
  truncate(size: number): void {
    this.grow(size);
    if (size < this.f.size) this.f.data.fill(0, size, this.f.size);
    this.f.size = size;
    this.f.mtime = now();
  }
  sync(): void {}
  close(): void {}
  private grow(size: number): void {
    if (size <= this.f.data.length) return;
    const data = new Uint8Array(Math.max(size, this.f.data.length * 2, 256));
    data.set(this.f.data.subarray(0, this.f.size));
    this.f.data = data;
  }
}

/**
 * An in-memory mount. Symlinks are followed only while they stay inside it
 * (an absolute target, or one that climbs above the root, fails with
 * `not-permitted`, and cannot be made); hard links share one node.
 */
export class MemMount implements Mount {
  readonly writable = true;
  private root = newDir();

  /** Walks `path`, following symlinks (in the last name only when `followLast`). */
  private lookup(path: string, followLast: boolean): Found {
    const pending = path === "" ? [] : path.split("/");
    const stack: { dir: MemDir; name: string }[] = [{ dir: this.root, name: "" }];
    const dirPath = () => stack.slice(1).map((s) => s.name).join("/");
    let links = 0;
    while (pending.length > 0) {
      const seg = pending.shift()!;
      if (seg === "" || seg === ".") continue;
      if (seg === "..") {
        if (stack.length === 1) throw new FsError("not-permitted", `${path} leaves the mount`);
        stack.pop();
        continue;
      }
      const dir = stack[stack.length - 1].dir;
      const last = pending.every((s) => s === "" || s === ".");
      const next = dir.entries.get(seg);
      if (!next) {
        if (last) return { node: undefined, parent: dir, name: seg, dirPath: dirPath() };
        throw new FsError("no-entry", `${path} does not exist`);
      }
      if (next.kind === "link" && (!last || followLast)) {
        if (++links > MAX_LINKS) throw new FsError("loop");
        if (next.target.startsWith("/")) {
          throw new FsError("not-permitted", `${path}: symlink to an absolute path`);
        }
        pending.unshift(...next.target.split("/"));
        continue;
      }
      if (next.kind === "dir") {
        stack.push({ dir: next, name: seg });
        if (last) break;
        continue;
      }
      if (!last) throw new FsError("not-directory");
      return { node: next, parent: dir, name: seg, dirPath: dirPath() };
    }
    const top = stack[stack.length - 1];
    const parent = stack.length > 1 ? stack[stack.length - 2] : null;
    return {
      node: top.dir,
      parent: parent?.dir ?? null,
      name: top.name,
      dirPath: stack.slice(1, -1).map((s) => s.name).join("/"),
    };
  }

  private existing(path: string, follow: boolean): Found & { node: MemNode } {
    const f = this.lookup(path, follow);
    if (!f.node) throw new FsError("no-entry", `${path} does not exist`);
    return f as Found & { node: MemNode };
  }

  /** The folder a new name goes into; fails when the name exists. */
  private fresh(path: string): Found & { parent: MemDir } {
    const f = this.lookup(path, false);
    if (f.node) throw new FsError("exist");
    return f as Found & { parent: MemDir };
  }

  /** True when `d` is `inside` or lies under it. */
  private contains(inside: MemDir, d: MemDir): boolean {
    if (inside === d) return true;
    for (const e of inside.entries.values()) {
      if (e.kind === "dir" && this.contains(e, d)) return true;
    }
    return false;
  }

  /** True when nothing has been written. */
  isEmpty(): boolean {
    return this.root.entries.size === 0;
  }

  stat(path: string, follow = true): Stat {
    return statOf(this.existing(path, follow).node);
  }

  open(path: string, opts: OpenOptions): FileHandle | null {
    const f = this.lookup(path, !opts.nofollow);
    let node = f.node;
    if (node && opts.create && opts.exclusive) throw new FsError("exist");
    if (node?.kind === "link") throw new FsError("loop", `${path} is a symlink`);
    if (node?.kind === "dir" || (opts.directory && node)) {
      if (node.kind !== "dir") throw new FsError("not-directory");
      if (opts.write || opts.truncate) throw new FsError("is-directory");
      return null;
    }
    if (opts.directory) throw new FsError("no-entry");
    if (!node) {
      if (!opts.create) throw new FsError("no-entry", `${path} does not exist`);
      if (!f.parent) throw new FsError("invalid");
      const t = now();
      node = {
        kind: "file",
        data: new Uint8Array(0),
        size: 0,
        ino: nextIno++,
        nlink: 1,
        mtime: t,
        atime: t,
      };
      f.parent.entries.set(f.name, node);
      f.parent.mtime = t;
    }
    const h = new MemHandle(node as MemFile);
    if (opts.truncate) h.truncate(0);
    return h;
  }

  readDir(path: string): DirEntry[] {
    const n = this.existing(path, true).node;
    if (n.kind !== "dir") throw new FsError("not-directory");
    return [...n.entries].map(([name, e]) => ({ name, type: TYPES[e.kind] } as DirEntry))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  mkdir(path: string): void {
    const f = this.fresh(path);
    f.parent.entries.set(f.name, newDir());
    f.parent.mtime = now();
  }

  rmdir(path: string): void {
    const f = this.existing(path, false);
    const n = f.node;
    if (n.kind !== "dir") throw new FsError("not-directory");
    if (n === this.root || !f.parent) throw new FsError("busy");
    if (n.entries.size > 0) throw new FsError("not-empty");
    f.parent.entries.delete(f.name);
    f.parent.mtime = now();
  }

  unlink(path: string): void {
    const f = this.existing(path, false);
    const n = f.node;
    if (n.kind === "dir") throw new FsError("is-directory");
    f.parent!.entries.delete(f.name);
    n.nlink--;
    f.parent!.mtime = now();
  }

  rename(from: string, to: string): void {
    const a = this.existing(from, false);
    const node = a.node;
    if (node === this.root || !a.parent) throw new FsError("busy");
    const b = this.lookup(to, false);
    if (!b.parent) throw new FsError("busy");
    if (b.node === node) return;
    if (node.kind === "dir" && this.contains(node, b.parent)) {
      throw new FsError("invalid", "cannot move a folder into itself");
    }
    if (node.kind === "link") this.checkTarget(node.target, b.dirPath);
    const existing = b.node;
    if (existing) {
      if (existing.kind === "dir" && node.kind !== "dir") throw new FsError("is-directory");
      if (existing.kind !== "dir" && node.kind === "dir") throw new FsError("not-directory");
      if (existing.kind === "dir" && existing.entries.size > 0) throw new FsError("not-empty");
      if (existing.kind !== "dir") existing.nlink--;
    }
    a.parent.entries.delete(a.name);
    b.parent.entries.set(b.name, node);
    a.parent.mtime = b.parent.mtime = now();
  }

  /** Fails unless the symlink text `target`, read from the folder `dirPath`, stays inside. */
  private checkTarget(target: string, dirPath: string): void {
    if (target.startsWith("/")) {
      throw new FsError("not-permitted", "symlinks to absolute paths leave the mount");
    }
    resolveGuestPath(dirPath, target);
  }

  symlink(target: string, path: string): void {
    const f = this.fresh(path);
    this.checkTarget(target, f.dirPath);
    const t = now();
    f.parent.entries.set(f.name, {
      kind: "link",
      target,
      ino: nextIno++,
      nlink: 1,
      mtime: t,
      atime: t,
    });
    f.parent.mtime = t;
  }

  link(from: string, to: string, follow: boolean): void {
    const a = this.existing(from, follow);
    const node = a.node;
    if (node.kind === "dir") throw new FsError("not-permitted", `${from} is a folder`);
    const b = this.fresh(to);
    if (node.kind === "link") this.checkTarget(node.target, b.dirPath);
    b.parent.entries.set(b.name, node);
    node.nlink++;
    b.parent.mtime = now();
  }

  readlink(path: string): string {
    const n = this.existing(path, false).node;
    if (n.kind !== "link") throw new FsError("invalid", "not a symlink");
    return n.target;
  }

  setTimes(path: string, atime: Instant | null, mtime: Instant | null, follow = true): void {
    const n = this.existing(path, follow).node;
    if (atime !== null) n.atime = atime;
    if (mtime !== null) n.mtime = mtime;
  }
}
