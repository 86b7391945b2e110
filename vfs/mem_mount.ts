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
  type Mount,
  type OpenOptions,
  type Stat,
} from "./mount.ts";

let nextIno = 1n;

interface MemFile {
  kind: "file";
  data: Uint8Array;
  size: number;
  ino: bigint;
  mtime: number;
  atime: number;
}

interface MemDir {
  kind: "dir";
  entries: Map<string, MemNode>;
  ino: bigint;
  mtime: number;
  atime: number;
}

type MemNode = MemFile | MemDir;

function newDir(): MemDir {
  const now = Date.now();
  return { kind: "dir", entries: new Map(), ino: nextIno++, mtime: now, atime: now };
}

function statOf(n: MemNode): Stat {
  return {
    type: n.kind === "dir" ? "directory" : "regular-file",
    size: n.kind === "dir" ? n.entries.size : n.size,
    nlink: 1,
    mtime: n.mtime,
    atime: n.atime,
    ctime: n.mtime,
    ino: n.ino,
  };
}

class MemHandle implements FileHandle {
  constructor(private f: MemFile) {}
  read(len: number, offset: number): Uint8Array {
    this.f.atime = Date.now();
    if (offset >= this.f.size) return new Uint8Array(0);
    return this.f.data.slice(offset, Math.min(this.f.size, offset + len));
  }
  write(bytes: Uint8Array, offset: number): number {
    const end = offset + bytes.length;
    this.grow(end);
    this.f.data.set(bytes, offset);
    if (end > this.f.size) this.f.size = end;
    this.f.mtime = Date.now();
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
    this.f.mtime = Date.now();
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

/** An in-memory mount. */
export class MemMount implements Mount {
  readonly writable = true;
  private root = newDir();

  private walk(path: string): MemNode | undefined {
    let node: MemNode = this.root;
    if (path === "") return node;
    for (const seg of path.split("/")) {
      if (node.kind !== "dir") throw new FsError("not-directory");
      const next: MemNode | undefined = node.entries.get(seg);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  private parent(path: string): { dir: MemDir; name: string } {
    if (path === "") throw new FsError("invalid", "the root has no parent");
    const cut = path.lastIndexOf("/");
    const dir = this.walk(cut < 0 ? "" : path.slice(0, cut));
    if (!dir) throw new FsError("no-entry");
    if (dir.kind !== "dir") throw new FsError("not-directory");
    return { dir, name: path.slice(cut + 1) };
  }

  private existing(path: string): MemNode {
    const n = this.walk(path);
    if (!n) throw new FsError("no-entry", `${path} does not exist`);
    return n;
  }

  /** True when nothing has been written. */
  isEmpty(): boolean {
    return this.root.entries.size === 0;
  }

  stat(path: string): Stat {
    return statOf(this.existing(path));
  }

  open(path: string, opts: OpenOptions): FileHandle | null {
    let node = this.walk(path);
    if (node && opts.create && opts.exclusive) throw new FsError("exist");
    if (node?.kind === "dir" || (opts.directory && node)) {
      if (node.kind !== "dir") throw new FsError("not-directory");
      if (opts.write || opts.truncate) throw new FsError("is-directory");
      return null;
    }
    if (opts.directory) throw new FsError("no-entry");
    if (!node) {
      if (!opts.create) throw new FsError("no-entry", `${path} does not exist`);
      const { dir, name } = this.parent(path);
      const now = Date.now();
      node = {
        kind: "file",
        data: new Uint8Array(0),
        size: 0,
        ino: nextIno++,
        mtime: now,
        atime: now,
      };
      dir.entries.set(name, node);
      dir.mtime = now;
    }
    const h = new MemHandle(node as MemFile);
    if (opts.truncate) h.truncate(0);
    return h;
  }

  readDir(path: string): DirEntry[] {
    const n = this.existing(path);
    if (n.kind !== "dir") throw new FsError("not-directory");
    return [...n.entries].map((
      [name, e],
    ) => ({ name, type: e.kind === "dir" ? "directory" : "regular-file" } as DirEntry))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  mkdir(path: string): void {
    const { dir, name } = this.parent(path);
    if (dir.entries.has(name)) throw new FsError("exist");
    dir.entries.set(name, newDir());
    dir.mtime = Date.now();
  }

  rmdir(path: string): void {
    const n = this.existing(path);
    if (n.kind !== "dir") throw new FsError("not-directory");
    if (n === this.root) throw new FsError("busy");
    if (n.entries.size > 0) throw new FsError("not-empty");
    const { dir, name } = this.parent(path);
    dir.entries.delete(name);
    dir.mtime = Date.now();
  }

  unlink(path: string): void {
    const n = this.existing(path);
    if (n.kind === "dir") throw new FsError("is-directory");
    const { dir, name } = this.parent(path);
    dir.entries.delete(name);
    dir.mtime = Date.now();
  }

  rename(from: string, to: string): void {
    const node = this.existing(from);
    if (node === this.root) throw new FsError("busy");
    if (to === from || to.startsWith(from + "/")) {
      if (to === from) return;
      throw new FsError("invalid", "cannot move a folder into itself");
    }
    const src = this.parent(from);
    const dst = this.parent(to);
    const existing = dst.dir.entries.get(dst.name);
    if (existing) {
      if (existing.kind === "dir" && node.kind !== "dir") throw new FsError("is-directory");
      if (existing.kind !== "dir" && node.kind === "dir") throw new FsError("not-directory");
      if (existing.kind === "dir" && existing.entries.size > 0) throw new FsError("not-empty");
    }
    src.dir.entries.delete(src.name);
    dst.dir.entries.set(dst.name, node);
    src.dir.mtime = dst.dir.mtime = Date.now();
  }

  symlink(): void {
    throw new FsError("unsupported", "symlinks are not supported in memory folders");
  }

  readlink(path: string): string {
    this.existing(path);
    throw new FsError("invalid", "not a symlink");
  }

  setTimes(path: string, atime: number | null, mtime: number | null): void {
    const n = this.existing(path);
    if (atime !== null) n.atime = atime;
    if (mtime !== null) n.mtime = mtime;
  }
}
