/**
 * Mounts served by the core (`/proc`, `/self`, `/run`), seen from the
 * sandbox: every operation is a request to the core over the sandbox's pipe,
 * answered asynchronously (the guest waits under JSPI).
 *
 * @module
 */

import { fromBase64, toBase64 } from "../../rpc/base64.ts";
import { HostError } from "../../rpc/errors.ts";
import type * as vfs from "../../vfs/mount.ts";
import { FsError } from "../../vfs/mount.ts";
import {
  type FsCall,
  type FsMethod,
  type FsResult,
  statFromWire,
  type WireStat,
} from "../../vfs/wire.ts";
import type { FromSandbox, FsReply, RemoteMountName } from "../hop/protocol.ts";

/** A request waiting for its reply. */
interface Waiting {
  resolve(reply: FsReply): void;
  reject(e: Error): void;
}

/**
 * A small file that came whole with the reply to its open (a remote
 * worker's process: `FsServer.handle`, `worker/whole_files.ts`): its bytes,
 * base64, and its stat.
 */
interface WholeReply {
  data: string;
  stat: WireStat;
}

/** Sends filesystem requests to the core and matches the replies. */
export class FsChannel {
  private next = 0;
  private waiting = new Map<number, Waiting>();

  /**
   * @param pid the process whose requests these are
   * @param send writes a message to the core
   */
  constructor(private pid: string, private send: (msg: FromSandbox) => void) {}

  /**
   * Makes a request; rejects with an `FsError` carrying the core's error
   * code, or with a `host-fault` `HostError` when the core failed serving
   * it (which the WASI layer turns into a trap).
   */
  async request<M extends FsMethod>(
    mount: RemoteMountName,
    call: FsCall & { method: M },
  ): Promise<FsResult<M>> {
    // The core answers the method it was asked (the sandbox trusts the core).
    return (await this.requestReply(mount, call)).result as FsResult<M> ?? null;
  }

  /** Makes a request; resolves with the whole reply (an open's may carry the file whole). */
  requestReply(mount: RemoteMountName, call: FsCall): Promise<FsReply> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ op: "fs", pid: this.pid, id, mount, call });
    });
  }

  /** Delivers a reply from the core. */
  reply(msg: FsReply): void {
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.fault !== undefined) w.reject(new HostError("host-fault", msg.fault));
    else if (msg.error) w.reject(new FsError(msg.error.code, msg.error.message));
    else w.resolve(msg);
  }

  /** Fails every pending request (the process ended). */
  abort(): void {
    for (const w of this.waiting.values()) w.reject(new FsError("io", "the process ended"));
    this.waiting.clear();
  }
}

/** An open file of a core-served mount: each operation a request for its handle. */
class RemoteFile implements vfs.FileHandle {
  constructor(private mount: RemoteMount, private handle: number) {}
  async read(len: number, offset: number): Promise<Uint8Array> {
    return fromBase64(
      await this.mount.call({ method: "h.read", args: [this.handle, len, offset] }),
    );
  }
  write(bytes: Uint8Array, offset: number): Promise<number> {
    return this.mount.call({ method: "h.write", args: [this.handle, toBase64(bytes), offset] });
  }
  size(): Promise<number> {
    return this.mount.call({ method: "h.size", args: [this.handle] });
  }
  async stat(): Promise<vfs.Stat> {
    return statFromWire(await this.mount.call({ method: "h.stat", args: [this.handle] }));
  }
  async truncate(size: number): Promise<void> {
    await this.mount.call({ method: "h.truncate", args: [this.handle, size] });
  }
  sync(): void {}
  close(): void {
    this.mount.call({ method: "h.close", args: [this.handle] }).catch(() => {});
  }
}

/**
 * A file that came whole with its open: its reads, size and stat are
 * answered here, without a message; its close is told (not waited for), so
 * that the worker counts what its process holds.
 */
class WholeFile implements vfs.FileHandle {
  constructor(
    private mount: RemoteMount,
    private handle: number,
    private bytes: Uint8Array,
    private seen: vfs.Stat,
  ) {}
  read(len: number, offset: number): Uint8Array {
    const from = Math.min(offset, this.bytes.length);
    return this.bytes.slice(from, from + len);
  }
  write(): number {
    throw new FsError("bad-descriptor", "the file was opened for reading only");
  }
  size(): number {
    return this.bytes.length;
  }
  stat(): vfs.Stat {
    return this.seen;
  }
  truncate(): void {
    throw new FsError("bad-descriptor", "the file was opened for reading only");
  }
  sync(): void {}
  close(): void {
    this.mount.call({ method: "h.close", args: [this.handle] }).catch(() => {});
  }
}

/** A mount whose operations the core performs. */
export class RemoteMount implements vfs.Mount {
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
  call<M extends FsMethod>(call: FsCall & { method: M }): Promise<FsResult<M>> {
    return this.channel.request<M>(this.name, call);
  }

  async stat(path: string, follow: boolean): Promise<vfs.Stat> {
    return statFromWire(await this.call({ method: "stat", args: [path, follow] }));
  }
  async open(path: string, opts: vfs.OpenOptions): Promise<vfs.FileHandle | null> {
    const reply = await this.channel.requestReply(this.name, {
      method: "open",
      args: [path, opts],
    });
    const handle = reply.result as number | null ?? null;
    if (handle === null) return null;
    const whole = (reply as { whole?: WholeReply }).whole;
    if (typeof whole?.data === "string" && typeof whole.stat === "object" && whole.stat) {
      return new WholeFile(this, handle, fromBase64(whole.data), statFromWire(whole.stat));
    }
    return new RemoteFile(this, handle);
  }
  readDir(path: string): Promise<vfs.DirEntry[]> {
    return this.call({ method: "readDir", args: [path] });
  }
  async mkdir(path: string): Promise<void> {
    await this.call({ method: "mkdir", args: [path] });
  }
  async rmdir(path: string): Promise<void> {
    await this.call({ method: "rmdir", args: [path] });
  }
  async unlink(path: string): Promise<void> {
    await this.call({ method: "unlink", args: [path] });
  }
  async rename(from: string, to: string): Promise<void> {
    await this.call({ method: "rename", args: [from, to] });
  }
  async symlink(target: string, path: string): Promise<void> {
    await this.call({ method: "symlink", args: [target, path] });
  }
  async link(from: string, to: string, follow: boolean): Promise<void> {
    await this.call({ method: "link", args: [from, to, follow] });
  }
  readlink(path: string): Promise<string> {
    return this.call({ method: "readlink", args: [path] });
  }
  async setTimes(
    path: string,
    atime: vfs.Instant | null,
    mtime: vfs.Instant | null,
    follow: boolean,
  ): Promise<void> {
    await this.call({ method: "setTimes", args: [path, atime, mtime, follow] });
  }
}
