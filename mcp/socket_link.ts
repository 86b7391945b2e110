/**
 * A `WorldLink` to the running host of a world, over its control socket
 * (`core/control_server.ts`). Every call gets a connection of its own that
 * says `$/hello {"as": "mcp"}`, so its process shows the parent `mcp`, and
 * closing that connection is how a call is cancelled: the host stops
 * (`core.stop`) the attached processes of a connection that closes.
 *
 * @module
 */

import { HostClient } from "../cli/client.ts";
import { HELLO } from "../core/control_server.ts";
import type { World } from "../core/world.ts";
import { fromBase64 } from "../rpc/base64.ts";
import { ErrorCode } from "../rpc/errors.ts";
import type { Response } from "../rpc/message.ts";
import { type CallOptions, MCP_CALLER, type WorldLink } from "./world_link.ts";

/** The error a call gets when its host went away. */
function hostGone(world: World): Response {
  return {
    jsonrpc: "2.0",
    id: null,
    error: { code: ErrorCode.InternalError, message: `no host runs ${world.root} any more` },
  };
}

/** The running host of a world, reached through its control socket. */
export class SocketLink implements WorldLink {
  /** @param world the world whose host answers the control socket */
  constructor(private world: World) {}

  /** True when a host runs the world now. */
  static async available(world: World): Promise<boolean> {
    const c = await HostClient.connect(world);
    c?.close();
    return c !== null;
  }

  private async connect(): Promise<HostClient | null> {
    const c = await HostClient.connect(this.world);
    if (!c) return null;
    await c.request(HELLO, { as: MCP_CALLER });
    return c;
  }

  async call(
    method: string,
    params: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<Response> {
    const c = await this.connect();
    if (!c) return hostGone(this.world);
    c.onNotify = (msg) => {
      const p = msg.params as { name?: unknown; params?: unknown };
      if (msg.method === "core.notify") opts.onNotify?.(String(p.name), p.params);
    };
    const cancel = () => c.close();
    opts.signal?.addEventListener("abort", cancel);
    try {
      return await c.send(method, params);
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      c.close();
    }
  }

  async read(path: string): Promise<Uint8Array> {
    const c = await this.connect();
    if (!c) throw new Error(hostGone(this.world).error!.message);
    try {
      const r = await c.send("$/cat", { path });
      if (r.error) throw new Error(r.error.message);
      return fromBase64(r.result as string);
    } finally {
      c.close();
    }
  }
}
