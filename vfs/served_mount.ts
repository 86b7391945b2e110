/**
 * `/proc/<pid>/fs/`: the files a process serves (PROTOCOL 5.1), as a mount.
 * Each operation is a request to the serving process (`ServedFiles`); a file
 * opened for reading is read whole at the open, a write goes out as it
 * happens. Folders, renames and links are not served (`not-permitted`).
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
import { virtualDirStat, virtualStat } from "./virtual_file.ts";

/** What a served path is, as the serving process says. */
export interface ServedStat {
  type: "file" | "dir";
  /** The bytes of a file (0 when the process does not say). */
  size?: number;
}

/** The files one process serves: each method a request to it (rejects with an `FsError`). */
export interface ServedFiles {
  stat(path: string): Promise<ServedStat>;
  list(path: string): Promise<DirEntry[]>;
  /** The whole file. */
  read(path: string): Promise<Uint8Array>;
  /** Writes `data` at `offset`; with `truncate` the file ends after it. */
  write(path: string, offset: number, data: Uint8Array, truncate: boolean): Promise<void>;
}

/** Fails with `not-permitted`: what a served folder cannot do. */
function notServed(): never {
  throw new FsError("not-permitted", "served files can be read, written, listed and stat'ed");
}

/** An open served file: reads from the snapshot of the open (or ask again after a write). */
class ServedFile implements FileHandle {
  constructor(
    private files: ServedFiles,
    private path: string,
    private key: string,
    private bytes: Uint8Array | null,
  ) {}

  private async content(): Promise<Uint8Array> {
    return this.bytes ??= await this.files.read(this.path);
  }
  async read(len: number, offset: number): Promise<Uint8Array> {
    return (await this.content()).slice(offset, offset + len);
  }
  async write(bytes: Uint8Array, offset: number): Promise<number> {
    await this.files.write(this.path, offset, bytes, false);
    this.bytes = null;
    return bytes.length;
  }
  async size(): Promise<number> {
    return (await this.stat()).size;
  }
  async stat(): Promise<Stat> {
    const s = await this.files.stat(this.path);
    return virtualStat(this.key, s.size ?? 0);
  }
  async truncate(size: number): Promise<void> {
    await this.files.write(this.path, size, new Uint8Array(), true);
    this.bytes = null;
  }
  sync(): void {}
  close(): void {
    this.bytes = null;
  }
}

/** The served files of one process as a mount (its root is `fs/`). */
export class ServedMount implements Mount {
  /** Writes go to the serving process, which decides. */
  readonly writable = true;

  /**
   * @param files the serving process's files
   * @param key the mount's virtual path (`proc/<pid>/fs`, for inode numbers)
   */
  constructor(private files: ServedFiles, private key: string) {}

  private keyOf(path: string): string {
    return path === "" ? this.key : `${this.key}/${path}`;
  }

  async stat(path: string): Promise<Stat> {
    const s = await this.files.stat(path);
    return s.type === "dir"
      ? virtualDirStat(this.keyOf(path))
      : virtualStat(this.keyOf(path), s.size ?? 0);
  }

  async open(path: string, opts: OpenOptions): Promise<FileHandle | null> {
    const writes = opts.write || opts.truncate || opts.create;
    let s: ServedStat | null = null;
    try {
      s = await this.files.stat(path);
    } catch (e) {
      if (!(e instanceof FsError && e.code === "no-entry" && opts.create)) throw e;
    }
    if (s && opts.create && opts.exclusive) throw new FsError("exist");
    if (s?.type === "dir") {
      if (writes) throw new FsError("is-directory");
      return null;
    }
    if (opts.directory) throw new FsError("not-directory");
    if (!writes) {
      return new ServedFile(this.files, path, this.keyOf(path), await this.files.read(path));
    }
    // A new file is made by its first write: create or truncate writes nothing at offset 0.
    if (opts.truncate || !s) await this.files.write(path, 0, new Uint8Array(), true);
    return new ServedFile(this.files, path, this.keyOf(path), null);
  }

  readDir(path: string): Promise<DirEntry[]> {
    return this.files.list(path);
  }

  readlink(): string {
    throw new FsError("invalid", "not a symlink");
  }

  mkdir = notServed;
  rmdir = notServed;
  unlink = notServed;
  rename = notServed;
  symlink = notServed;
  link = notServed;
  setTimes(): void {}
}
