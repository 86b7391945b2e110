/**
 * The datagram streams of a `wasi:sockets/udp` socket (`udp.ts`):
 * `incoming-datagram-stream`, which takes what the socket received, and
 * `outgoing-datagram-stream`, which sends through it.
 *
 * @module
 */

import { Pollable } from "./poll.ts";
import type { Signal } from "./signal.ts";
import type { IpSocketAddress } from "./socket_address.ts";

/** `incoming-datagram`. */
export interface IncomingDatagram {
  data: Uint8Array;
  remoteAddress: IpSocketAddress;
}

/** `outgoing-datagram`. */
export interface OutgoingDatagram {
  data: Uint8Array;
  remoteAddress?: IpSocketAddress;
}

/** What the streams use of their socket (`UdpSocket`). */
export interface DatagramEndpoint {
  /** Notified on each datagram and on errors. */
  readonly changed: Signal;
  /** True when a datagram or an error waits (or the socket is gone). */
  readonly receivable: boolean;
  /** Up to `max` received datagrams; a pending socket error first. */
  takeReceived(max: number): IncomingDatagram[];
  /** How many datagrams may be sent now. */
  sendPermits(): bigint;
  /** Sends datagrams in order; returns how many were sent. */
  send(datagrams: OutgoingDatagram[]): bigint;
}

/** `wasi:sockets/udp.incoming-datagram-stream`. */
export class IncomingDatagramStream {
  /** The receiving side of `socket`. */
  constructor(private socket: DatagramEndpoint) {}

  /** Up to `maxResults` datagrams that have arrived (possibly none). */
  receive(maxResults: bigint): IncomingDatagram[] {
    if (maxResults === 0n) return [];
    return this.socket.takeReceived(Number(maxResults > 1024n ? 1024n : maxResults));
  }

  /** Ready when a datagram waits. */
  subscribe(): Pollable {
    return new Pollable(() => this.socket.receivable, () => this.socket.changed.wait());
  }
}

/** `wasi:sockets/udp.outgoing-datagram-stream`. */
export class OutgoingDatagramStream {
  /** The sending side of `socket`. */
  constructor(private socket: DatagramEndpoint) {}

  /** How many datagrams the next `send` may take. */
  checkSend(): bigint {
    return this.socket.sendPermits();
  }

  /** Sends datagrams; returns how many were sent. */
  send(datagrams: OutgoingDatagram[]): bigint {
    return this.socket.send(datagrams);
  }

  /** Always ready: sends never wait. */
  subscribe(): Pollable {
    return new Pollable(() => true, () => Promise.resolve());
  }
}
