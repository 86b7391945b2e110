/**
 * What the console needs from a running host, as one interface: calls with
 * their notifications (cancellable), the filesystem as a process sees it,
 * the process table, the journal and the plugins' documents.
 * `local_host.ts` implements it over the host of `sausage run`.
 *
 * @module
 */

import type { Entry, LogFilter } from "../../core/journal/journal.ts";
import type { ProcessInfo } from "../../core/processes/process.ts";
import type { RpcErrorObject } from "../../rpc/message.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import type { Listing } from "../../vfs/host_fs.ts";

/** How a call ended. */
export type CallOutcome =
  | { result: unknown }
  | { error: RpcErrorObject }
  | { cancelled: true };

/** A call in progress. */
export interface CallHandle {
  /** Settles once: with the answer, or `cancelled` after `cancel`. */
  readonly outcome: Promise<CallOutcome>;
  /** Kills the processes the call started and settles `outcome` as cancelled. */
  cancel(): void;
}

/** A running host, as the console sees it. */
export interface ConsoleHost {
  /** The world's folder. */
  readonly root: string;
  /** The plugins of the world (folders in `plugins/`). */
  plugins(): string[];
  /** The core's methods, without `core.` (for completion). */
  coreMethods(): string[];
  /** Makes a call as the caller `console`; `notify` gets its `core.notify` notifications. */
  call(
    method: string,
    params: Record<string, unknown>,
    notify: (name: string, params: unknown) => void,
  ): CallHandle;
  /** The `rpc.discover` document of a plugin's current version. */
  discover(plugin: string): Promise<OpenRpcDocument>;
  /** A folder (or a file's stat) as a process sees it. */
  list(path: string): Promise<Listing>;
  /** A file as a process sees it. */
  read(path: string): Promise<Uint8Array>;
  /** The running processes. */
  processes(): ProcessInfo[];
  /** Journal entries, oldest first. */
  journal(filter: LogFilter): Entry[];
}
