/**
 * Mounts served by the core (`/proc`, `/self`, `/run`), seen from the
 * sandbox: every operation is a request to the core over the sandbox's pipe,
 * answered asynchronously (the guest waits under JSPI).
 *
 * @module
 */

import { fromBase64, toBase64 } from "../rpc/base64.ts";
import {
  type DirEntry,
  type FileHandle,
  FsError,
  type Instant,
  type Mount,
  type OpenOptions,
  type Stat,
} from "../vfs/mount.ts";
import { statFromWire, type WireStat } from "../vfs/wire.ts";
import type { FromSandbox, FsReply, RemoteMountName } from "./protocol.ts";

/** Sends filesystem requests to the core and matches the replies. */
export class FsChannel {
  private next = 0;
  private waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();

  /**
   * @param pid the process whose requests these are
   * @param send writes a message to the core
   */
  constructor(private pid: string, private send: (msg: FromSandbox) => void) {}

  /** Makes a request; rejects with an `FsError` carrying the core's error code. */
  request(mount: RemoteMountName, method: string, args: unknown[]): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ op: "fs", pid: this.pid, id, mount, method, args });
    });
  }

  /** Delivers a reply from the core. */
  reply(msg: FsReply): void {
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.error) w.reject(new FsError(msg.error.code, msg.error.message));
    else w.resolve(msg.result);
  }

  /** Fails every pending request (the process ended). */
  abort(): void {
    for (const w of this.waiting.values()) w.reject(new FsError("io", "the process ended"));
    this.waiting.clear();
  }
}

class RemoteFile implements FileHandle {
  constructor(private mount: RemoteMount, private handle: number) {}
  async read(len: number, offset: number): Promise<Uint8Array> {
    return fromBase64(await this.mount.call("h.read", [this.handle, len, offset]) as string);
  }
  write(bytes: Uint8Array, offset: number): Promise<number> {
    return this.mount.call("h.write", [this.handle, toBase64(bytes), offset]) as Promise<number>;
  }
  size(): Promise<number> {
    return this.mount.call("h.size", [this.handle]) as Promise<number>;
  }
  async stat(): Promise<Stat> {
    return statFromWire(await this.mount.call("h.stat", [this.handle]) as WireStat);
  }
  async truncate(size: number): Promise<void> {
    await this.mount.call("h.truncate", [this.handle, size]);
  }
  sync(): void {}
  close(): void {
    this.mount.call("h.close", [this.handle]).catch(() => {});
  }
}

/** A mount whose operations the core performs. */
export class RemoteMount implements Mount {
  /**
   * @param name which of the core's mounts
   * @param writable false for `/proc`
   * @param channel the pipe to the core
   */
  constructor(
    private name: RemoteMountName,
    readonly writable: boolean,
    private channel: FsChannel,
  ) {}

  /** Sends one operation. */
  call(method: string, args: unknown[]): Promise<unknown> {
    return this.channel.request(this.name, method, args);
  }

  async stat(path: string, follow: boolean): Promise<Stat> {
    return statFromWire(await this.call("stat", [path, follow]) as WireStat);
  }
  async open(path: string, opts: OpenOptions): Promise<FileHandle | null> {
    const handle = await this.call("open", [path, opts]) as number | null;
    return handle === null ? null : new RemoteFile(this, handle);
  }
  readDir(path: string): Promise<DirEntry[]> {
    return this.call("readDir", [path]) as Promise<DirEntry[]>;
  }
  async mkdir(path: string): Promise<void> {
    await this.call("mkdir", [path]);
  }
  async rmdir(path: string): Promise<void> {
    await this.call("rmdir", [path]);
  }
  async unlink(path: string): Promise<void> {
    await this.call("unlink", [path]);
  }
  async rename(from: string, to: string): Promise<void> {
    await this.call("rename", [from, to]);
  }
  async symlink(target: string, path: string): Promise<void> {
    await this.call("symlink", [target, path]);
  }
  async link(from: string, to: string, follow: boolean): Promise<void> {
    await this.call("link", [from, to, follow]);
  }
  readlink(path: string): Promise<string> {
    return this.call("readlink", [path]) as Promise<string>;
  }
  async setTimes(
    path: string,
    atime: Instant | null,
    mtime: Instant | null,
    follow: boolean,
  ): Promise<void> {
    await this.call("setTimes", [path, atime, mtime, follow]);
  }
}
