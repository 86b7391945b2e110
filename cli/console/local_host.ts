/**
 * The console's host in the same process: `sausage run` hands its `Host`
 * here. Each call gets a client of its own (`core/control/world_client.ts`) named
 * `console`, so that cancelling it kills exactly the processes it started.
 *
 * @module
 */

import type { Entry, LogFilter } from "../../core/journal/journal.ts";
import type { Host } from "../../core/host.ts";
import type { ProcessInfo } from "../../core/processes/process.ts";
import { WorldClient } from "../../core/control/world_client.ts";
import { ErrorCode } from "../../rpc/errors.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import type { Listing } from "../../vfs/host_fs.ts";
import type { CallHandle, CallOutcome, ConsoleHost } from "./console_host.ts";

/** A `ConsoleHost` over a host in this process. */
export class LocalConsoleHost implements ConsoleHost {
  /** @param host the running host */
  constructor(private host: Host) {}

  /** The world's folder. */
  get root(): string {
    return this.host.world.root;
  }

  /** The plugins of the world. */
  plugins(): string[] {
    return this.host.world.pluginNames();
  }

  /** The core's methods, without `core.`. */
  coreMethods(): string[] {
    return [...this.host.router.core.keys()].sort();
  }

  /** Makes a call as `console`; `cancel` kills the processes it started. */
  call(
    method: string,
    params: Record<string, unknown>,
    notify: (name: string, params: unknown) => void,
  ): CallHandle {
    let settle!: (o: CallOutcome) => void;
    const outcome = new Promise<CallOutcome>((r) => (settle = r));
    const client = WorldClient.of(this.host, "console");
    client.onNotify = (msg) => {
      if (msg.method !== "core.notify") return;
      const p = msg.params as { name?: unknown; params?: unknown };
      notify(String(p.name), p.params);
    };
    client.send(method, params).then(
      (r) => {
        // The client stays open: a process that answered may go on (the host's end stops it).
        settle(r.error ? { error: r.error } : { result: r.result });
      },
      (e) => settle({ error: { code: ErrorCode.InternalError, message: String(e) } }),
    );
    return {
      outcome,
      cancel: () => {
        client.kill();
        client.close();
        settle({ cancelled: true });
      },
    };
  }

  /** The `rpc.discover` document of a plugin's current version. */
  async discover(plugin: string): Promise<OpenRpcDocument> {
    return await this.host.docs.get(plugin) as OpenRpcDocument;
  }

  /** A folder as a process sees it. */
  list(path: string): Promise<Listing> {
    return this.host.fs.list(path);
  }

  /** A file as a process sees it. */
  read(path: string): Promise<Uint8Array> {
    return this.host.fs.read(path);
  }

  /** The running processes. */
  processes(): ProcessInfo[] {
    return this.host.table.list();
  }

  /** Journal entries, oldest first. */
  journal(filter: LogFilter): Entry[] {
    return this.host.journal.query(filter);
  }
}
