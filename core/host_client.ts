/**
 * A client of a running host's control socket (`core/control_path.ts`: a
 * Unix socket in a private folder, named by a hash of the world's path). A
 * missing or stale socket (the host is gone) means no host runs. Every
 * connection opens with `$/hello`, which also checks that the host serves
 * this world. Ids, pending calls and their end belong to `rpc/connection.ts`.
 *
 * @module
 */

import { controlSocketPath, HELLO } from "./control_path.ts";
import { Connection } from "../rpc/connection.ts";
import { carrierLineLimit, DEFAULT_MAX_LINE } from "../rpc/line_splitter.ts";
import { LineTransport, rawDuplex } from "../rpc/line_transport.ts";
import type { Request, Response } from "../rpc/message.ts";
import type { World } from "./world.ts";

/** A connection to a running host. */
export class HostClient {
  private conn: Connection;
  private ids = 0;
  /** Receives notifications (`core.notify` of the calls made here). */
  onNotify: (msg: Request) => void = () => {};

  private constructor(socket: Deno.UnixConn) {
    // The host's answers carry lines of up to the world's limit, JSON-encoded.
    const transport = new LineTransport(rawDuplex(socket), carrierLineLimit(DEFAULT_MAX_LINE));
    this.conn = new Connection(transport, {
      closedMessage: "the host closed the connection",
      nextId: () => ++this.ids,
    });
    this.conn.onrequest = (msg) => this.onNotify(msg);
  }

  /** Connects to the host of `world`, or returns null when none runs. */
  static async connect(world: World): Promise<HostClient | null> {
    let socket: Deno.UnixConn;
    try {
      socket = await Deno.connect({ transport: "unix", path: await controlSocketPath(world.root) });
    } catch {
      return null;
    }
    const client = new HostClient(socket);
    try {
      const hello = await client.request(HELLO, {}) as { world?: string };
      if (hello.world === world.root) return client;
    } catch { /* not a sausage host */ }
    client.close();
    return null;
  }

  /** The id of the request sent last (for `core.cancel`). */
  get lastId(): number {
    return this.ids;
  }

  /** Sends a notification. */
  notify(method: string, params: Record<string, unknown>): void {
    this.conn.notify(method, params);
  }

  /** Sends a request and resolves with the whole response (-32603 if the host closes first). */
  send(method: string, params: Record<string, unknown>): Promise<Response> {
    return this.conn.request(method, params);
  }

  /** Sends a request; resolves with its result or rejects with its error message. */
  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const r = await this.send(method, params);
    if (r.error) throw new Error(r.error.message);
    return r.result;
  }

  /** Closes the connection. */
  close(): void {
    this.conn.close();
  }
}
