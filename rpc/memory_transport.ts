/**
 * Two transports linked in memory, for tests of anything that speaks over
 * a `Transport`: what one sends, the other receives (a turn later, as over a
 * real stream); closing either closes both.
 *
 * @module
 */

import type { Message } from "./message.ts";
import type { Transport } from "./transport.ts";
import { parseExact } from "./exact_json.ts";

/** One end of a linked pair. */
class MemoryTransport implements Transport {
  /** The other end. */
  peer!: MemoryTransport;
  private started = false;
  private ended = false;
  private queued: Message[] = [];
  /** Receives each message of the peer, in order. */
  onmessage?: (msg: Message) => void;
  /** Hears once that either end closed. */
  onclose?: () => void;

  start(): void {
    this.started = true;
    for (const msg of this.queued.splice(0)) this.onmessage?.(msg);
  }

  send(msg: Message): void {
    if (this.ended) return;
    // Through text, as over a real stream (`structuredClone` cannot copy a kept big integer).
    const copy = parseExact(JSON.stringify(msg)) as Message;
    queueMicrotask(() => this.peer.receive(copy));
  }

  close(): void {
    this.end();
    this.peer.end();
  }

  private receive(msg: Message): void {
    if (this.ended) return;
    if (this.started) this.onmessage?.(msg);
    else this.queued.push(msg);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    queueMicrotask(() => this.onclose?.());
  }
}

/** Two linked transports: `[a, b]`, what `a` sends `b` receives and the other way round. */
export function memoryTransportPair(): [Transport, Transport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
