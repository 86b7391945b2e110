/**
 * Serves a process's requests for the mounts that live in the core
 * (`/proc`, `/self`, `/run`): calls the mount, keeps the open handles of the
 * process, and closes them when it ends.
 *
 * @module
 */

import { fromBase64, toBase64 } from "../rpc/base64.ts";
import { toFsError } from "../vfs/errno.ts";
import type { FileHandle, Instant, Mount, OpenOptions } from "../vfs/mount.ts";
import { statToWire } from "../vfs/wire.ts";
import type { FsReply, FsRequest, RemoteMountName } from "../sandbox/protocol.ts";

/** The core-served mounts of one process, and its open handles. */
export class FsServer {
  private handles = new Map<number, FileHandle>();
  private next = 0;

  /**
   * @param mounts the mounts by preopen name; `world` and `preopen:…` serve
   * `symlink` only (the sandbox does the rest itself)
   */
  constructor(private mounts: Partial<Record<RemoteMountName, Mount>>) {}

  /** Performs one request and builds the reply. */
  async handle(req: FsRequest): Promise<FsReply> {
    try {
      return { op: "fs-reply", pid: req.pid, id: req.id, result: await this.perform(req) };
    } catch (e) {
      const err = toFsError(e);
      return {
        op: "fs-reply",
        pid: req.pid,
        id: req.id,
        error: { code: err.code, message: err.message },
      };
    }
  }

  private file(n: unknown): FileHandle {
    const h = this.handles.get(n as number);
    if (!h) throw toFsError({ code: "EBADF" });
    return h;
  }

  private async perform(req: FsRequest): Promise<unknown> {
    const mount = this.mounts[req.mount];
    if (!mount) throw toFsError({ code: "EBADF" });
    const linksOnly = req.mount === "world" || req.mount.startsWith("preopen:");
    if (linksOnly && req.method !== "symlink") throw toFsError({ code: "EINVAL" });
    const a = req.args;
    switch (req.method) {
      case "stat":
        return statToWire(await mount.stat(a[0] as string, a[1] as boolean));
      case "open": {
        const h = await mount.open(a[0] as string, a[1] as OpenOptions);
        if (!h) return null;
        this.handles.set(++this.next, h);
        return this.next;
      }
      case "readDir":
        return await mount.readDir(a[0] as string);
      case "mkdir":
        return await mount.mkdir(a[0] as string) ?? null;
      case "rmdir":
        return await mount.rmdir(a[0] as string) ?? null;
      case "unlink":
        return await mount.unlink(a[0] as string) ?? null;
      case "rename":
        return await mount.rename(a[0] as string, a[1] as string) ?? null;
      case "symlink":
        return await mount.symlink(a[0] as string, a[1] as string) ?? null;
      case "link":
        return await mount.link(a[0] as string, a[1] as string, a[2] as boolean) ?? null;
      case "readlink":
        return await mount.readlink(a[0] as string);
      case "setTimes":
        return await mount.setTimes(
          a[0] as string,
          a[1] as Instant | null,
          a[2] as Instant | null,
          a[3] as boolean,
        ) ?? null;
      case "h.read":
        return toBase64(await this.file(a[0]).read(a[1] as number, a[2] as number));
      case "h.write":
        return await this.file(a[0]).write(fromBase64(a[1] as string), a[2] as number);
      case "h.size":
        return await this.file(a[0]).size();
      case "h.stat":
        return statToWire(await this.file(a[0]).stat());
      case "h.truncate":
        return await this.file(a[0]).truncate(a[1] as number) ?? null;
      case "h.close": {
        this.handles.get(a[0] as number)?.close();
        this.handles.delete(a[0] as number);
        return null;
      }
      default:
        throw toFsError({ code: "EINVAL" });
    }
  }

  /** Closes every handle (the process ended). */
  close(): void {
    for (const h of this.handles.values()) h.close();
    this.handles.clear();
  }
}
