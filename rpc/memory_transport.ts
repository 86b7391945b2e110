/**
 * Two transports linked in memory: what one sends, the other receives (a
 * turn later, as over a real stream); closing either closes both. Tests of
 * anything that speaks over a `Transport` use it, and so do the host's
 * clients in its own OS process (`core/control/control_server.ts`), which hand the
 * messages over as they are rather than through text.
 *
 * @module
 */

import type { Message } from "./message.ts";
import type { Transport } from "./transport.ts";
import { parseExact } from "./exact_json.ts";

/** One end of a linked pair. */
class MemoryTransport implements Transport {
  /** @param copy whether a message goes through text (a copy), as over a real stream */
  constructor(private copy: boolean) {}
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
    const copy = this.copy ? parseExact(JSON.stringify(msg)) as Message : msg;
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

/** How a linked pair hands messages over. */
export interface MemoryPairOptions {
  /**
   * Whether each message goes through text, as over a real stream (default
   * true); false hands the object itself over (the sender must not change it after).
   */
  copy?: boolean;
}

/** Two linked transports: `[a, b]`, what `a` sends `b` receives and the other way round. */
export function memoryTransportPair(opts: MemoryPairOptions = {}): [Transport, Transport] {
  const a = new MemoryTransport(opts.copy ?? true);
  const b = new MemoryTransport(opts.copy ?? true);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
