/**
 * A client of a running host's control socket (`core/control_path.ts`: a
 * Unix socket in a private folder, named by a hash of the world's path). A
 * missing or stale socket (the host is gone) means no host runs. Every
 * connection opens with `$/hello`, which also checks that the host serves
 * this world.
 *
 * @module
 */

import { HELLO } from "../core/control_server.ts";
import { controlSocketPath } from "../core/control_path.ts";
import { LineWriter } from "../rpc/line_channel.ts";
import { carrierLineLimit, DEFAULT_MAX_LINE, streamLines } from "../rpc/line_splitter.ts";
import { parseLine, type Request, type Response } from "../rpc/message.ts";
import type { World } from "../core/world.ts";

/** A connection to a running host. */
export class HostClient {
  private next = 0;
  private waiting = new Map<string | number, (r: Response) => void>();
  private out: LineWriter;
  /** Receives notifications (`core.notify` of the calls made here). */
  onNotify: (msg: Request) => void = () => {};

  private constructor(private conn: Deno.UnixConn) {
    this.out = new LineWriter(conn.writable);
    this.read();
  }

  /** Connects to the host of `world`, or returns null when none runs. */
  static async connect(world: World): Promise<HostClient | null> {
    let conn: Deno.UnixConn;
    try {
      conn = await Deno.connect({ transport: "unix", path: await controlSocketPath(world.root) });
    } catch {
      return null;
    }
    const client = new HostClient(conn);
    try {
      const hello = await client.request(HELLO, {}) as { world?: string };
      if (hello.world === world.root) return client;
    } catch { /* not a sausage host */ }
    client.close();
    return null;
  }

  private async read(): Promise<void> {
    try {
      // The host's answers carry lines of up to the world's limit, JSON-encoded.
      for await (
        const line of streamLines(this.conn.readable, carrierLineLimit(DEFAULT_MAX_LINE))
      ) {
        const p = parseLine(line);
        if (p.kind === "response" && p.msg.id !== null) {
          this.waiting.get(p.msg.id)?.(p.msg);
          this.waiting.delete(p.msg.id);
        } else if (p.kind === "request") this.onNotify(p.msg);
      }
    } catch { /* closed */ }
    for (const w of this.waiting.values()) {
      w({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32603, message: "the host closed the connection" },
      });
    }
    this.waiting.clear();
  }

  /** Sends a request and resolves with the whole response. */
  send(method: string, params: Record<string, unknown>): Promise<Response> {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.out.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a request; resolves with its result or rejects with its error message. */
  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const r = await this.send(method, params);
    if (r.error) throw new Error(r.error.message);
    return r.result;
  }

  /** Closes the connection. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}
