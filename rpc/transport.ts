/**
 * The seam under a JSON-RPC connection (as in the MCP TypeScript SDK): a
 * transport starts delivering the peer's messages, sends ours, and closes.
 * `line_transport.ts` runs it over a byte stream (a socket, a pipe);
 * `memory_transport.ts` links two in memory for tests.
 *
 * @module
 */

import type { Message } from "./message.ts";

/** Moves messages to and from one peer. */
export interface Transport {
  /** Starts delivering the peer's messages to `onmessage`, and its end to `onclose` (once). */
  start(): void;
  /** Sends one message; dropped once the peer is gone. */
  send(msg: Message): void;
  /** Closes the transport; `onclose` follows. */
  close(): void;
  /** Receives each message of the peer, in order. */
  onmessage?: (msg: Message) => void;
  /** Hears once that the peer is gone (or that `close` was called). */
  onclose?: () => void;
}
