/**
 * A `WorldLink` to the running host of a world, over its control socket
 * (`core/control_server.ts`). Every call gets a connection of its own that
 * says `$/hello {"as": "mcp"}`, so its process shows the parent `mcp`, and
 * closing that connection is how a call is cancelled: the host stops
 * (`core.stop`) the attached processes of a connection that closes. When no
 * host answers, a call or read throws `NoHostError` before sending anything.
 *
 * @module
 */

import { HostClient } from "../core/host_client.ts";
import { HELLO } from "../core/control_path.ts";
import type { World } from "../core/world.ts";
import { fromBase64 } from "../rpc/base64.ts";
import type { Response } from "../rpc/message.ts";
import { type CallOptions, MCP_CALLER, type WorldLink } from "./world_link.ts";

/** Thrown when no host answers the control socket: nothing was sent, so trying elsewhere is safe. */
export class NoHostError extends Error {
  /** @param world the world without a host */
  constructor(world: World) {
    super(`no host runs ${world.root} any more`);
    this.name = "NoHostError";
  }
}

/** The running host of a world, reached through its control socket. */
export class SocketLink implements WorldLink {
  /** @param world the world whose host answers the control socket */
  constructor(private world: World) {}

  private async connect(): Promise<HostClient> {
    const c = await HostClient.connect(this.world);
    if (!c) throw new NoHostError(this.world);
    await c.request(HELLO, { as: MCP_CALLER });
    return c;
  }

  async call(
    method: string,
    params: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<Response> {
    const c = await this.connect();
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
    try {
      const r = await c.send("$/cat", { path });
      if (r.error) throw new Error(r.error.message);
      return fromBase64(r.result as string);
    } finally {
      c.close();
    }
  }
}
