/**
 * Serves a process's requests for the mounts that live in the core
 * (`/proc`, `/self`, `/run`): checks each request (a sandbox is not
 * trusted) into a typed call of `vfs/wire.ts`, calls the mount, keeps the
 * open handles of the process, and closes them when it ends. An errno of a
 * mount goes back as one; anything else the mount throws is a host fault:
 * reported to `onFault` (the journal) and answered as a fault, which traps
 * the process.
 *
 * @module
 */

import { fromBase64, toBase64 } from "../../rpc/base64.ts";
import { HostError } from "../../rpc/errors.ts";
import { fsErrorOf } from "../../vfs/errno.ts";
import { type FileHandle, FsError, type Mount, type Stat } from "../../vfs/mount.ts";
import {
  checkFsCall,
  type FsCall,
  type FsMethod,
  type FsParams,
  type FsResult,
  statToWire,
  type WireStat,
} from "../../vfs/wire.ts";
import type { FsReply, RemoteMountName } from "../../sandbox/hop/protocol.ts";

/** The methods whose wire params and result are the mount's own (nothing: null). */
type Direct = Exclude<FsMethod, "stat" | "open" | `h.${string}`>;

/** The mount's methods, by their wire names: a mount is one, checked by the compiler. */
type DirectOps = {
  [M in Direct]: (...args: FsParams<M>) => FsResult<M> | void | Promise<FsResult<M> | void>;
};

/** Calls the mount method that `call` names with its params. */
async function direct<M extends Direct>(ops: DirectOps, call: FsCall<M>): Promise<FsResult<M>> {
  return await ops[call.method](...call.args) ?? null;
}

/** A filesystem request as it arrives from a sandbox: `pid` and `id` routed it, the rest is unchecked. */
export interface UncheckedFsRequest {
  /** The process, as the core routed the message. */
  pid: string;
  /** The request's number, echoed in the reply. */
  id: number;
  /** Which mount; checked against the process's own. */
  mount: unknown;
  /** The method and params; checked by `checkFsCall`. */
  call: unknown;
}

/** A small file sent whole with the reply to its open (`FsServer.handle`'s `wholeMax`). */
export interface WholeFile {
  /** Its bytes, base64. */
  data: string;
  /** Its stat, as `h.stat` answers. */
  stat: WireStat;
  /**
   * The key under which the worker may keep it for later opens of its path
   * (`core/remote/kept_files.ts`); absent: for this handle only.
   */
  keep?: string;
}

/** A whole file's stat before its bytes were read, and when (not sent: the host's own). */
export interface WholeSeen {
  stat: Stat;
  /** `Date.now()` before the stat. */
  at: number;
}

/** The core-served mounts of one process, and its open handles. */
export class FsServer {
  private handles = new Map<number, FileHandle>();
  private next = 0;
  private mounts = new Map<unknown, Mount>();

  /**
   * @param mounts the mounts by preopen name; `world` and `preopen:…` serve
   * `symlink` only (the sandbox does the rest itself)
   * @param onFault told of each host fault (to journal it)
   * @param worldServed `world` serves every method (a remote worker's
   * process, which has no world folder of its own: `core/remote/`)
   */
  constructor(
    mounts: Partial<Record<RemoteMountName, Mount>>,
    private onFault: (fault: HostError) => void = () => {},
    private worldServed = false,
  ) {
    for (const [name, mount] of Object.entries(mounts)) if (mount) this.mounts.set(name, mount);
  }

  /**
   * Checks and performs one request, and builds the reply. With `wholeMax`
   * (a remote worker's process), a file opened for reading only whose size
   * is at most `wholeMax` bytes comes whole with the reply (`whole`: its
   * bytes and stat) and its handle is closed here at once: the worker
   * answers that handle's reads, stats and close itself, one message for a
   * small file instead of five (the contents as they were at the open, as
   * NFS's close-to-open consistency gives); `seen` is the file's stat
   * before its bytes were read (for the host only: take it off the reply).
   */
  async handle(
    req: UncheckedFsRequest,
    wholeMax = 0,
  ): Promise<FsReply & { whole?: WholeFile; seen?: WholeSeen }> {
    const reply: Pick<FsReply, "op" | "pid" | "id"> = { op: "fs-reply", pid: req.pid, id: req.id };
    try {
      const call = checkFsCall(req.call);
      const result = await this.perform(req.mount, call);
      if (wholeMax > 0 && call.method === "open" && typeof result === "number") {
        const [, o] = call.args;
        if (o.read && !o.write && !o.truncate && !o.directory) {
          const got = await this.whole(result, wholeMax);
          if (got) return { ...reply, result, whole: got.whole, seen: got.seen };
        }
      }
      return { ...reply, result };
    } catch (e) {
      const err = fsErrorOf(e);
      if (err) return { ...reply, error: { code: err.code, message: err.message } };
      const fault = HostError.fault(e, `serving a filesystem request of ${req.pid}`);
      this.onFault(fault);
      return { ...reply, fault: fault.message };
    }
  }

  private file(n: number): FileHandle {
    const h = this.handles.get(n);
    if (!h) throw new FsError("bad-descriptor", `no open file ${n}`);
    return h;
  }

  private mount(name: unknown, call: FsCall): Mount {
    const mount = this.mounts.get(name);
    if (!mount) throw new FsError("bad-descriptor", `no mount ${JSON.stringify(name)}`);
    const linksOnly = name === "world" ? !this.worldServed : String(name).startsWith("preopen:");
    if (linksOnly && call.method !== "symlink") {
      throw new FsError("invalid", `the core makes only symlinks in ${name}`);
    }
    return mount;
  }

  private async perform(name: unknown, call: FsCall): Promise<FsResult> {
    const mount = this.mount(name, call);
    switch (call.method) {
      case "stat":
        return statToWire(await mount.stat(...call.args));
      case "open": {
        const h = await mount.open(...call.args);
        if (!h) return null;
        this.handles.set(++this.next, h);
        return this.next;
      }
      case "h.read": {
        const [handle, len, offset] = call.args;
        return toBase64(await this.file(handle).read(len, offset));
      }
      case "h.write": {
        const [handle, bytes, offset] = call.args;
        return await this.file(handle).write(fromBase64(bytes), offset);
      }
      case "h.size":
        return await this.file(call.args[0]).size();
      case "h.stat":
        return statToWire(await this.file(call.args[0]).stat());
      case "h.truncate":
        return await this.file(call.args[0]).truncate(call.args[1]) ?? null;
      case "h.close": {
        this.handles.get(call.args[0])?.close();
        this.handles.delete(call.args[0]);
        return null;
      }
      default:
        return await direct(mount, call);
    }
  }

  /** The whole of open file `n` when it has at most `max` bytes (its handle closed then). */
  private async whole(
    n: number,
    max: number,
  ): Promise<{ whole: WholeFile; seen: WholeSeen } | null> {
    const h = this.file(n);
    const seenAt = Date.now();
    const stat = await h.stat();
    if (stat.type !== "regular-file" || stat.size > max) return null;
    const parts: Uint8Array[] = [];
    let got = 0;
    // Its size and one byte more (a file that grew since the stat shows it): a read of
    // `max` bytes each time cost the host more than the rest of the open (two 64 KiB buffers).
    let ask = stat.size + 1;
    for (;;) {
      const chunk = await h.read(ask - got, got);
      parts.push(chunk);
      got += chunk.length;
      if (got > max) return null; // it grew meanwhile: served as any other file
      if (got < ask) break; // a short read: its end (a handle's read fills what it can)
      ask = max + 1;
    }
    const bytes = new Uint8Array(got);
    let at = 0;
    for (const p of parts) (bytes.set(p, at), at += p.length);
    h.close();
    this.handles.delete(n);
    return {
      whole: { data: toBase64(bytes), stat: statToWire({ ...stat, size: got }) },
      seen: { stat, at: seenAt },
    };
  }

  /** Closes every handle (the process ended). */
  close(): void {
    for (const h of this.handles.values()) h.close();
    this.handles.clear();
  }
}
