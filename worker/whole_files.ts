/**
 * A worker's small world files, answered here rather than by the host: a
 * file that came whole with the reply to its open (`FsServer.handle`) goes
 * on whole to the sandbox, which answers that handle's reads, size and
 * stat itself (`sandbox/mounts/remote_mount.ts`; here too, for a sandbox that
 * asks) and tells its close; one the host let the worker keep (`keep`:
 * `core/remote/kept_files.ts`) also answers later read-only opens of its
 * path, by any process here, whole, until the host says to drop it
 * (`uncache`). No open answered here reaches the host.
 *
 * @module
 */

import type { FsReply, FsRequest } from "../sandbox/hop/protocol.ts";
import type { WholeFile } from "../core/files/fs_server.ts";
import type { WireStat } from "../vfs/wire.ts";
import { fromBase64, toBase64 } from "../rpc/base64.ts";
import { keptKey } from "../core/remote/kept_files.ts";

/** A file's bytes and stat, as the host sent them (and its bytes in base64, to send on). */
interface Whole {
  bytes: Uint8Array;
  data: string;
  stat: WireStat;
}

/**
 * The first number of the handles opened here: far above the host's (one
 * count per process, from 1), so that the two never meet.
 */
const LOCAL_HANDLES = 2 ** 50;

/** The most handles one process holds here at once (as many as the host sends it whole). */
export const HELD_MAX = 256;

/** The worker's whole files: open handles by process, and kept files by key. */
export class WholeFiles {
  /** Each process's handles answered here. */
  private handles = new Map<string, Map<number, Whole>>();
  /** The files kept for later opens, by `keptKey`. */
  private kept = new Map<string, Whole>();
  private next = LOCAL_HANDLES;

  /** How many files are kept. */
  get keptCount(): number {
    return this.kept.size;
  }

  /**
   * A reply from the host: a whole file's handle is counted (and answered
   * here if asked), and the file kept if the host said so; the reply goes
   * on with the file whole, for the sandbox.
   */
  took(msg: FsReply & { whole?: WholeFile }): FsReply & { whole?: WholeFile } {
    const { whole, ...reply } = msg;
    if (typeof reply.result !== "number" || typeof whole?.data !== "string") return reply;
    const file = { bytes: fromBase64(whole.data), data: whole.data, stat: whole.stat };
    this.hold(reply.pid, reply.result, file);
    if (typeof whole.keep === "string") this.kept.set(whole.keep, file);
    return { ...reply, whole: { data: whole.data, stat: whole.stat } };
  }

  private hold(pid: string, handle: number, file: Whole): void {
    let mine = this.handles.get(pid);
    if (!mine) this.handles.set(pid, mine = new Map());
    mine.set(handle, file);
  }

  /** Drops kept files (the host saw them change, or made room), or all of them. */
  uncache(keys: string[], all = false): void {
    if (all) this.kept.clear();
    for (const k of keys) this.kept.delete(k);
  }

  /**
   * The answer to a request of the world mount that is answered here (an
   * open of a kept file; a read, size, stat or close of a handle opened
   * here), or null when it is for the host.
   */
  answer(m: FsRequest): (FsReply & { whole?: WholeFile }) | null {
    const reply = { op: "fs-reply" as const, pid: m.pid, id: m.id };
    const call = m.call as { method?: string; args?: unknown[] };
    if (call?.method === "open") {
      const key = keptKey(call);
      const file = key === null ? undefined : this.kept.get(key);
      if (!file || (this.handles.get(m.pid)?.size ?? 0) >= HELD_MAX) return null;
      const handle = this.next++;
      this.hold(m.pid, handle, file);
      return { ...reply, result: handle, whole: { data: file.data, stat: file.stat } };
    }
    if (!call?.method?.startsWith("h.") || !Array.isArray(call.args)) return null;
    const mine = this.handles.get(m.pid);
    const file = mine?.get(call.args[0] as number);
    if (!mine || !file) return null;
    const [, a, b] = call.args;
    switch (call.method) {
      case "h.read": {
        const ok = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
        if (!ok(a) || !ok(b)) {
          return { ...reply, error: { code: "invalid", message: "a read's length and offset" } };
        }
        const from = Math.min(b as number, file.bytes.length);
        return { ...reply, result: toBase64(file.bytes.subarray(from, from + (a as number))) };
      }
      case "h.size":
        return { ...reply, result: file.bytes.length };
      case "h.stat":
        return { ...reply, result: file.stat };
      case "h.close":
        mine.delete(call.args[0] as number);
        return { ...reply, result: null };
      default:
        return {
          ...reply,
          error: { code: "bad-descriptor", message: "the file was opened for reading only" },
        };
    }
  }

  /** A process ended: its handles go. */
  ended(pid: string): void {
    this.handles.delete(pid);
  }

  /** Drops everything (the host's processes here end, or it is another host). */
  clear(): void {
    this.handles.clear();
    this.kept.clear();
  }
}
