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
import { type FileHandle, FsError, type Mount } from "../../vfs/mount.ts";
import {
  checkFsCall,
  type FsCall,
  type FsMethod,
  type FsParams,
  type FsResult,
  statToWire,
} from "../../vfs/wire.ts";
import type { FsReply, RemoteMountName } from "../../sandbox/protocol.ts";

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

  /** Checks and performs one request, and builds the reply. */
  async handle(req: UncheckedFsRequest): Promise<FsReply> {
    const reply: Pick<FsReply, "op" | "pid" | "id"> = { op: "fs-reply", pid: req.pid, id: req.id };
    try {
      return { ...reply, result: await this.perform(req.mount, checkFsCall(req.call)) };
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

  /** Closes every handle (the process ended). */
  close(): void {
    for (const h of this.handles.values()) h.close();
    this.handles.clear();
  }
}
