/**
 * Read-only files whose content the core generates: a snapshot taken when
 * the file is opened, or live (each read sees the content as it is then, for
 * append-only files such as `/proc/<pid>/log`).
 *
 * @module
 */

import { type FileHandle, FsError, type Stat } from "./mount.ts";

const encoder = new TextEncoder();

/** Content of a generated file. */
export type Content = () => string | Promise<string>;

let nextIno = 1n << 40n;
const inos = new Map<string, bigint>();

/** A stable inode number for a virtual path. */
function virtualIno(key: string): bigint {
  let ino = inos.get(key);
  if (ino === undefined) inos.set(key, ino = nextIno++);
  return ino;
}

/** The stat of a generated file with `bytes` of content. */
export function virtualStat(key: string, size: number, mtime = Date.now()): Stat {
  return {
    type: "regular-file",
    size,
    nlink: 1,
    mtime,
    atime: mtime,
    ctime: mtime,
    ino: virtualIno(key),
  };
}

/** The stat of a virtual folder. */
export function virtualDirStat(key: string, mtime = Date.now()): Stat {
  return {
    type: "directory",
    size: 0,
    nlink: 1,
    mtime,
    atime: mtime,
    ctime: mtime,
    ino: virtualIno(key),
  };
}

/** Encodes generated content. */
export async function render(content: Content): Promise<Uint8Array> {
  return encoder.encode(await content());
}

/** An open generated file. */
export class VirtualFile implements FileHandle {
  private snapshot: Uint8Array | null;

  /**
   * @param key the virtual path (for the inode number)
   * @param content how to produce the content
   * @param first the content at open time
   * @param live true when every read regenerates the content
   */
  constructor(
    private key: string,
    private content: Content,
    first: Uint8Array,
    private live: boolean,
  ) {
    this.snapshot = first;
  }

  private async bytes(): Promise<Uint8Array> {
    if (this.live) this.snapshot = await render(this.content);
    return this.snapshot!;
  }

  async read(len: number, offset: number): Promise<Uint8Array> {
    const b = await this.bytes();
    return b.slice(offset, offset + len);
  }
  write(): number {
    throw new FsError("read-only");
  }
  async size(): Promise<number> {
    return (await this.bytes()).length;
  }
  async stat(): Promise<Stat> {
    return virtualStat(this.key, (await this.bytes()).length);
  }
  truncate(): void {
    throw new FsError("read-only");
  }
  sync(): void {}
  close(): void {
    this.snapshot = null;
  }
}
