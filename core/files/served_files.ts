/**
 * Plugin-served files (PROTOCOL 5.1): `core.serve` makes a process a file
 * server, and its `/proc/<pid>/fs/` then asks it, through requests on its
 * stdin (`core.fs`), for each stat, listing, read and write. What it answers
 * is checked (a process is not trusted) and bounded (`served_request_kib`).
 *
 * @module
 */

import { fromBase64, toBase64 } from "../../rpc/base64.ts";
import { HostError } from "../../rpc/errors.ts";
import { isObject, type JsonObject, type Response } from "../../rpc/message.ts";
import type { DirEntry } from "../../vfs/mount.ts";
import { FsError } from "../../vfs/mount.ts";
import type { ServedFiles, ServedStat } from "../../vfs/served_mount.ts";
import type { CoreMethod } from "../calls/core_method.ts";
import type { Process } from "../processes/process.ts";
import { ProcessRequests } from "../processes/process_requests.ts";

/** The served files of one process: each operation a `core.fs` request to it. */
class ProcessFiles implements ServedFiles {
  constructor(private requests: ProcessRequests, private maxBytes: number) {}

  private async ask(params: JsonObject): Promise<JsonObject> {
    const result = await this.requests.request("core.fs", params);
    if (!isObject(result)) throw new FsError("io", `core.fs ${params.op}: the answer is no object`);
    return result;
  }

  async stat(path: string): Promise<ServedStat> {
    const r = await this.ask({ op: "stat", path });
    const size = typeof r.size === "number" && r.size >= 0 ? Math.floor(r.size) : 0;
    if (r.type === "dir") return { type: "dir" };
    if (r.type === "file") return { type: "file", size };
    throw new FsError("io", `core.fs stat: "type" must be "file" or "dir"`);
  }

  async list(path: string): Promise<DirEntry[]> {
    const r = await this.ask({ op: "list", path });
    if (!Array.isArray(r.entries)) throw new FsError("io", `core.fs list: no "entries"`);
    return r.entries.flatMap((e): DirEntry[] =>
      isObject(e) && typeof e.name === "string" && e.name !== "" && !e.name.includes("/")
        ? [{ name: e.name, type: e.type === "dir" ? "directory" : "regular-file" }]
        : []
    );
  }

  async read(path: string): Promise<Uint8Array> {
    const r = await this.ask({ op: "read", path });
    if (typeof r.data !== "string") throw new FsError("io", `core.fs read: no "data"`);
    if (r.data.length * 3 / 4 > this.maxBytes + 2) {
      throw new FsError("file-too-large", `more than served_request_kib (${this.maxBytes} bytes)`);
    }
    return fromBase64(r.data);
  }

  async write(path: string, offset: number, data: Uint8Array, truncate: boolean): Promise<void> {
    if (data.length > this.maxBytes) {
      throw new FsError("file-too-large", `more than served_request_kib (${this.maxBytes} bytes)`);
    }
    await this.ask({ op: "write", path, offset, data: toBase64(data), truncate });
  }
}

/** A serving process's requests and files. */
interface Server {
  requests: ProcessRequests;
  files: ProcessFiles;
}

/** The processes that serve files, by pid. */
export class ServedRegistry {
  private servers = new Map<string, Server>();

  /**
   * @param maxInFlight `served_requests`
   * @param maxBytes `served_request_kib`, in bytes
   */
  constructor(private maxInFlight: number, private maxBytes: number) {}

  /** Makes `p` a file server (again: nothing changes). */
  serve(p: Process): void {
    if (this.servers.has(p.pid) || p.hasEnded) return;
    const requests = new ProcessRequests((msg) => p.deliver(msg), this.maxInFlight);
    this.servers.set(p.pid, { requests, files: new ProcessFiles(requests, this.maxBytes) });
  }

  /** The files `pid` serves, or undefined. */
  files(pid: string): ServedFiles | undefined {
    return this.servers.get(pid)?.files;
  }

  /** Takes a response of `p` to one of the core's requests: true when it was one. */
  settle(p: Process, msg: Response): boolean {
    return this.servers.get(p.pid)?.requests.settle(msg) ?? false;
  }

  /** `p` ended: its open requests fail, its `fs/` goes. */
  end(p: Process): void {
    this.servers.get(p.pid)?.requests.end();
    this.servers.delete(p.pid);
  }

  /** `core.serve`. */
  methods(): Map<string, CoreMethod> {
    return new Map<string, CoreMethod>([["serve", (caller) => {
      if (!("pid" in caller)) {
        throw new HostError(
          "invalid-request",
          "only a process serves files: call core.serve from a plugin",
        );
      }
      this.serve(caller as Process);
      return {};
    }]]);
  }
}
