/**
 * One JSON-RPC connection over a `Transport` (as the MCP TypeScript SDK's
 * `Protocol`): it owns the ids of our requests, the calls waiting for their
 * answers, and their end. When the transport closes, every pending call gets
 * an error response at once (-32603, with a message that says the peer is
 * gone), and so does every call made after. The peer's requests and
 * notifications go to `onrequest`.
 *
 * @module
 */

import { ErrorCode, RpcError } from "./errors.ts";
import {
  errorResponse,
  type Id,
  type JsonObject,
  type Message,
  type Request,
  type Response,
} from "./message.ts";
import type { Transport } from "./transport.ts";

/** How a connection names its requests and its end. */
export interface ConnectionOptions {
  /** The message of the error that pending calls get when the transport closes. */
  closedMessage?: string;
  /** The id of the next request (default 1, 2, 3, …). */
  nextId?: () => Id;
}

/** Requests and their answers over one transport. */
export class Connection {
  private pending = new Map<Id, (r: Response) => void>();
  private count = 0;
  private ended = false;
  private markClosed!: () => void;
  /** Resolves once the transport has closed and every pending call has its error. */
  readonly closed: Promise<void> = new Promise((r) => (this.markClosed = r));
  /** Receives the peer's requests and notifications. */
  onrequest: (msg: Request) => void = () => {};

  /**
   * Takes over the transport's callbacks and starts it.
   * @param transport what the messages travel over
   * @param opts ids and the message of the closed error
   */
  constructor(private transport: Transport, private opts: ConnectionOptions = {}) {
    transport.onmessage = (msg) => this.receive(msg);
    transport.onclose = () => this.end();
    transport.start();
  }

  /** True once the transport has closed. */
  get isClosed(): boolean {
    return this.ended;
  }

  /** Sends a request and resolves with the whole response (an error response if the connection ends first). */
  request(method: string, params: JsonObject = {}): Promise<Response> {
    const id = this.opts.nextId?.() ?? ++this.count;
    if (this.ended) return Promise.resolve(this.closedError(id));
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.transport.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a request; resolves with its result, or rejects with its error as an `RpcError`. */
  async call(method: string, params: JsonObject = {}): Promise<unknown> {
    const r = await this.request(method, params);
    if (r.error) throw new RpcError(r.error.code, r.error.message, r.error.data);
    return r.result;
  }

  /** Sends a notification (no answer comes). */
  notify(method: string, params: JsonObject = {}): void {
    if (!this.ended) this.transport.send({ jsonrpc: "2.0", method, params });
  }

  /** Answers a request of the peer. */
  respond(response: Response): void {
    if (!this.ended) this.transport.send(response);
  }

  /** Closes the transport; pending calls get their error. */
  close(): void {
    this.transport.close();
  }

  /** Hands a peer's request to `onrequest`, or an answer to the call that waits for it. */
  private receive(msg: Message): void {
    if ("method" in msg) return this.onrequest(msg);
    if (msg.id === null) return; // an answer that names no call of ours
    const resolve = this.pending.get(msg.id);
    if (!resolve) return;
    this.pending.delete(msg.id);
    resolve(msg);
  }

  /** The transport closed: every pending call gets its error, once. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const [id, resolve] of this.pending) resolve(this.closedError(id));
    this.pending.clear();
    this.markClosed();
  }

  /** The answer of a call that the closed connection cannot make. */
  private closedError(id: Id): Response {
    return errorResponse(id, {
      code: ErrorCode.InternalError,
      message: this.opts.closedMessage ?? "the connection closed",
    });
  }
}
