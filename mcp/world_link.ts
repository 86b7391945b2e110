/**
 * What the MCP server needs of a world: calls through the core, and files as
 * a process sees them. `session_link.ts` implements it over the one client
 * of a world (`core/control/world_client.ts`), whichever host serves the session: a
 * call is a call like any other, journaled, in `ps` and `/proc`, with the
 * parent `mcp`.
 *
 * @module
 */

import type { Response } from "../rpc/message.ts";

/** The name of the MCP server as a caller: `SAUSAGE_PARENT` of its processes. */
export const MCP_CALLER = "mcp";

/** Options of one call. */
export interface CallOptions {
  /** Receives each `core.notify` of the call: its `name` and `params`. */
  onNotify?: (name: string, params: unknown) => void;
  /** Aborting it stops the call's process (`core.stop`: EOF, grace, kill). */
  signal?: AbortSignal;
}

/** A world, as the MCP server uses it. */
export interface WorldLink {
  /** Makes a call through the core; resolves with the whole response (an error too). */
  call(method: string, params: Record<string, unknown>, opts?: CallOptions): Promise<Response>;
  /** Reads a file as a process sees it (`/proc/core/graph.json`, `/config/mcp.json`). */
  read(path: string): Promise<Uint8Array>;
}
