/**
 * The world's host for one run of `sausage mcp`: the running host when there
 * is one (`SocketLink`), else a host started here for the session
 * (`HostLink`, with the control socket and the boot calls, never building),
 * found the one way every command finds it (`core/reach_host.ts`: under the
 * world's lock, waiting for a host that is starting).
 * When the running host goes away mid-session (`sausage run` stopped), the
 * next call or read starts a host here and goes on; a call that was already
 * sent is not repeated (it fails with the host's closing error).
 *
 * @module
 */

import type { ControlServer } from "../core/control_server.ts";
import type { Host } from "../core/host.ts";
import { reachHost } from "../core/reach_host.ts";
import type { World } from "../core/world.ts";
import type { Response } from "../rpc/message.ts";
import { HostLink } from "./host_link.ts";
import { NoHostError, SocketLink } from "./socket_link.ts";
import type { CallOptions, WorldLink } from "./world_link.ts";

/** A host started for the session. */
interface OwnHost {
  link: HostLink;
  host: Host;
  control: ControlServer;
}

/** The session's way to its world, whichever host serves it. */
export class SessionLink implements WorldLink {
  private own: Promise<OwnHost> | null = null;
  private socket: SocketLink;
  private endSession!: (code: number) => void;
  /** Resolves with an exit code when a host started here ends by itself (`core.exit`). */
  readonly ended = new Promise<number>((r) => (this.endSession = r));

  /**
   * @param world the world
   * @param report receives one line per event worth telling the user (stderr)
   */
  constructor(private world: World, private report: (line: string) => void) {
    this.socket = new SocketLink(world);
  }

  /** Picks the host: the running one, or one started now. */
  async start(): Promise<void> {
    await this.reach();
  }

  /** The running host (null: use the socket), or the one this session now holds. */
  private async reach(): Promise<OwnHost | null> {
    if (this.own) return await this.own;
    const reached = await reachHost(this.world, {
      command: "sausage mcp",
      transient: false,
      host: { report: this.report },
      report: this.report,
    });
    if (reached.client) {
      reached.client.close();
      return null;
    }
    this.own ??= this.ownHost(reached.host, reached.control);
    return await this.own;
  }

  private async ownHost(host: Host, control: ControlServer): Promise<OwnHost> {
    await host.start();
    host.done.then((code) => this.endSession(code));
    this.report(`sausage mcp: started a host for ${this.world.root}; it ends with the session`);
    return { link: new HostLink(host), host, control };
  }

  /** Runs `f` on the host this session uses, starting one when the running host is gone. */
  private async use<T>(f: (link: WorldLink) => Promise<T>): Promise<T> {
    for (;;) {
      if (this.own) return f((await this.own).link);
      try {
        return await f(this.socket);
      } catch (e) {
        if (!(e instanceof NoHostError)) throw e;
      }
      // The running host is gone: another one (or this session) holds the world next.
      const own = await this.reach();
      if (own) return f(own.link);
    }
  }

  call(method: string, params: Record<string, unknown>, opts?: CallOptions): Promise<Response> {
    return this.use((link) => link.call(method, params, opts));
  }

  read(path: string): Promise<Uint8Array> {
    return this.use((link) => link.read(path));
  }

  /** Stops the host started here, if any (every process stopped, the journal flushed). */
  async close(): Promise<void> {
    if (!this.own) return;
    const { host, control } = await this.own;
    control.close();
    await host.shutdown();
  }
}
