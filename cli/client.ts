/**
 * A client of a running host's control socket, found through
 * `state/core/host.json`. A stale file (the host is gone, or the port now
 * belongs to something else) means no host runs.
 *
 * @module
 */

import type { HostFile } from "../core/control_server.ts";
import { LineWriter, readLines } from "../rpc/line_channel.ts";
import { parseLine, type Request, type Response } from "../rpc/message.ts";
import type { World } from "../core/world.ts";

/** A connection to a running host. */
export class HostClient {
  private next = 0;
  private waiting = new Map<string | number, (r: Response) => void>();
  private out: LineWriter;
  /** Receives notifications (`core.notify` of the calls made here). */
  onNotify: (msg: Request) => void = () => {};

  private constructor(private conn: Deno.TcpConn) {
    this.out = new LineWriter(conn.writable);
    this.read();
  }

  /** Connects to the host of `world`, or returns null when none runs. */
  static async connect(world: World): Promise<HostClient | null> {
    let file: HostFile;
    try {
      file = JSON.parse(await Deno.readTextFile(world.hostFile()));
    } catch {
      return null;
    }
    let conn: Deno.TcpConn;
    try {
      conn = await Deno.connect({ hostname: "127.0.0.1", port: file.port });
    } catch {
      return null;
    }
    const client = new HostClient(conn);
    try {
      const hello = await client.request("$/hello", {}) as { world?: string };
      if (hello.world === world.root) return client;
    } catch { /* not a sausage host */ }
    client.close();
    return null;
  }

  private async read(): Promise<void> {
    try {
      for await (const line of readLines(this.conn.readable)) {
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
