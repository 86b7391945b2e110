/**
 * The world's host for one run of `sausage mcp`: the running host when there
 * is one, else a host started here for the session (served by
 * `core/control/world_server.ts`, with the control socket and the boot calls, never
 * building), found the one way every command finds it
 * (`WorldClient.reachOrServe`: under the world's lock, waiting for a host
 * that is starting). Either way each call and each read has a client of its
 * own (`core/control/world_client.ts`) named `mcp`, so its process shows the parent
 * `mcp`, and closing that client is how a call is cancelled: the host stops
 * (`core.stop`) the attached processes of a client that closes.
 *
 * When the running host goes away mid-session (`sausage run` stopped), the
 * next call or read starts a host here and goes on; a call that was already
 * sent is not repeated (it fails with the host's closing error).
 *
 * @module
 */

import { HELLO } from "../core/control/control_path.ts";
import type { World } from "../core/world/world.ts";
import { WorldClient } from "../core/control/world_client.ts";
import type { WorldServer } from "../core/control/world_server.ts";
import type { Response } from "../rpc/message.ts";
import { type CallOptions, MCP_CALLER, type WorldLink } from "./world_link.ts";

/** The session's way to its world, whichever host serves it. */
export class SessionLink implements WorldLink {
  private own: Promise<WorldServer> | null = null;
  private endSession!: (code: number) => void;
  /** Resolves with an exit code when a host started here ends by itself (`core.exit`). */
  readonly ended = new Promise<number>((r) => (this.endSession = r));

  /**
   * @param world the world
   * @param report receives one line per event worth telling the user (stderr)
   */
  constructor(private world: World, private report: (line: string) => void) {}

  /** Picks the host: the running one, or one started now. */
  async start(): Promise<void> {
    await this.reach();
  }

  /** The running host (null: use the socket), or the one this session now serves. */
  private async reach(): Promise<WorldServer | null> {
    if (this.own) return await this.own;
    const found = await WorldClient.reachOrServe(this.world, {
      command: "sausage mcp",
      transient: false,
      host: { report: this.report },
      report: this.report,
    });
    if (found instanceof WorldClient) {
      found.close();
      return null;
    }
    this.own ??= this.serve(found);
    return await this.own;
  }

  private async serve(server: WorldServer): Promise<WorldServer> {
    await server.start();
    server.done.then((code) => this.endSession(code));
    this.report(`sausage mcp: started a host for ${this.world.root}; it ends with the session`);
    return server;
  }

  /** A client for one use, named `mcp`: of the host this session uses, started when the running one is gone. */
  private async client(): Promise<WorldClient> {
    for (;;) {
      if (this.own) return WorldClient.of((await this.own).host, MCP_CALLER);
      const c = await WorldClient.connect(this.world);
      if (c) {
        await c.request(HELLO, { as: MCP_CALLER });
        return c;
      }
      // The running host is gone: another one (or this session) holds the world next.
      const own = await this.reach();
      if (own) return WorldClient.of(own.host, MCP_CALLER);
    }
  }

  async call(
    method: string,
    params: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<Response> {
    const c = await this.client();
    c.onNotify = (msg) => {
      const p = msg.params as { name?: unknown; params?: unknown };
      if (msg.method === "core.notify") opts.onNotify?.(String(p.name), p.params);
    };
    const cancel = () => c.close();
    opts.signal?.addEventListener("abort", cancel);
    try {
      if (opts.signal?.aborted) cancel();
      return await c.send(method, params);
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      c.close();
    }
  }

  async read(path: string): Promise<Uint8Array> {
    const c = await this.client();
    try {
      return await c.read(path);
    } finally {
      c.close();
    }
  }

  /** Stops the host started here, if any (every process stopped, the journal flushed). */
  async close(): Promise<void> {
    if (!this.own) return;
    await (await this.own).shutdown();
  }
}
