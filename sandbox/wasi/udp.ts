/**
 * `wasi:sockets/udp` and `wasi:sockets/udp-create-socket` on `node:dgram`
 * (Deno's own `Deno.listenDatagram` needs `--unstable-net`, which sandboxes
 * do not get). Binding is non-blocking (`finish-bind` says `would-block`
 * until the bind has settled); received datagrams wait in a bounded queue;
 * sends go out in the background and a failure is reported by the next
 * `check-send`. A "connected" stream (`stream(some(addr))`) is emulated: it
 * sends to that address and keeps only datagrams from it. The socket's two
 * datagram streams are `udp_streams.ts`'s.
 *
 * `node:dgram` is loaded at the first bind, not with the sandbox: the first
 * `node:` module a Deno process loads costs ~50 ms (Node compatibility
 * starts), which every sandbox start would otherwise pay.
 *
 * @module
 */

import type dgram from "node:dgram";
import { Pollable } from "./poll.ts";
import type { ProcessResources } from "./resources.ts";
import { Signal } from "./signal.ts";
import { fail, type SocketErrorCode, toSocketErrorCode } from "./socket_errors.ts";
import {
  hostnameOf,
  type IpAddressFamily,
  type IpSocketAddress,
  isIpv4Mapped,
  isUnspecified,
  socketAddress,
} from "./socket_address.ts";
import type { Network } from "./network_capability.ts";
import {
  type DatagramEndpoint,
  type IncomingDatagram,
  IncomingDatagramStream,
  type OutgoingDatagram,
  OutgoingDatagramStream,
} from "./udp_streams.ts";

/** How many received datagrams wait for the guest before new ones are dropped (as a full kernel buffer would). */
const QUEUE_LIMIT = 1024;

/** How many datagrams `check-send` permits at a time. */
const SEND_PERMITS = 64n;

/** The largest payload of one datagram, by family. */
const MAX_DATAGRAM = { ipv4: 65507, ipv6: 65527 } as const;

type State =
  | { kind: "unbound" }
  | { kind: "bind-started"; sock?: dgram.Socket; error?: SocketErrorCode; done: boolean }
  | { kind: "bound"; sock: dgram.Socket }
  | { kind: "closed" };

function sameAddress(a: IpSocketAddress, b: IpSocketAddress): boolean {
  return a.tag === b.tag && a.val.port === b.val.port && hostnameOf(a) === hostnameOf(b);
}

/** `wasi:sockets/udp.udp-socket`. */
export class UdpSocket implements DatagramEndpoint {
  private state: State = { kind: "unbound" };
  private remote: IpSocketAddress | undefined;
  private queue: IncomingDatagram[] = [];
  /** An error reported by the socket after the bind (a failed send), for the next receive or check-send. */
  private pendingError: SocketErrorCode | undefined;
  private hopLimit = 64;
  private receiveBuffer = 208n * 1024n;
  private sendBuffer = 208n * 1024n;
  /** Notified on bind completion, on each datagram and on errors. */
  readonly changed = new Signal();
  private readonly unregister: () => void;

  /**
   * A new unbound socket (guests get one from `create-udp-socket`).
   * @param family the address family of every address this socket takes
   * @param resources where the socket registers itself for release at process end
   */
  constructor(private readonly family: IpAddressFamily, resources: ProcessResources) {
    this.unregister = resources.add(() => this.close());
  }

  private checkAddress(addr: IpSocketAddress): void {
    if (addr.tag !== this.family || isIpv4Mapped(addr)) fail("invalid-argument");
  }

  private checkPeer(addr: IpSocketAddress): void {
    this.checkAddress(addr);
    if (isUnspecified(addr) || addr.val.port === 0) fail("invalid-argument");
  }

  private toWit(address: string, port: number): IpSocketAddress | undefined {
    const addr = socketAddress(address, port);
    if (addr && this.family === "ipv6" && addr.tag === "ipv4") {
      return socketAddress(`::ffff:${hostnameOf(addr)}`, port);
    }
    return addr;
  }

  /** Starts binding the local address. */
  startBind(_network: Network, localAddress: IpSocketAddress): void {
    if (this.state.kind !== "unbound") fail("invalid-state");
    this.checkAddress(localAddress);
    const state: State & { kind: "bind-started" } = { kind: "bind-started", done: false };
    this.state = state;
    import("node:dgram").then(({ default: dgram }) => {
      if (this.state === state) {
        this.bind(
          state,
          dgram.createSocket({
            type: this.family === "ipv4" ? "udp4" : "udp6",
            ipv6Only: false,
          }),
          localAddress,
        );
      }
    }, (e) => {
      state.done = true;
      state.error = toSocketErrorCode(e);
      this.changed.notify();
    });
  }

  /** Binds `sock` for `start-bind`'s `state`; `finish-bind` reports the outcome. */
  private bind(
    state: State & { kind: "bind-started" },
    sock: dgram.Socket,
    localAddress: IpSocketAddress,
  ): void {
    state.sock = sock;
    // An 'error' event without a listener would throw in the host: every error is kept for the guest.
    sock.on("error", (e) => {
      if (!state.done) {
        state.done = true;
        state.error = toSocketErrorCode(e);
      } else {
        this.pendingError = toSocketErrorCode(e);
      }
      this.changed.notify();
    });
    sock.on("listening", () => {
      state.done = true;
      try {
        sock.setTTL(this.hopLimit);
      } catch { /* best effort */ }
      this.changed.notify();
    });
    sock.on("message", (msg: Uint8Array, rinfo: dgram.RemoteInfo) => this.received(msg, rinfo));
    try {
      sock.bind({
        address: hostnameOf(localAddress),
        port: localAddress.val.port,
        exclusive: true,
      });
    } catch (e) {
      state.done = true;
      state.error = toSocketErrorCode(e);
    }
  }

  private received(msg: Uint8Array, rinfo: dgram.RemoteInfo): void {
    const from = this.toWit(rinfo.address, rinfo.port);
    if (!from || (this.remote && !sameAddress(from, this.remote))) return;
    if (this.queue.length >= QUEUE_LIMIT) return;
    this.queue.push({ data: new Uint8Array(msg), remoteAddress: from });
    this.changed.notify();
  }

  /** Completes `start-bind`. */
  finishBind(): void {
    const s = this.state;
    if (s.kind !== "bind-started") fail("not-in-progress");
    if (!s.done) fail("would-block");
    if (s.error) {
      this.state = { kind: "unbound" };
      try {
        s.sock?.close();
      } catch { /* never bound */ }
      fail(s.error);
    }
    if (!s.sock) fail("would-block"); // cannot happen: done comes from the socket
    this.state = { kind: "bound", sock: s.sock };
  }

  /**
   * Streams to receive and send datagrams. With `remoteAddress`, sends go
   * there and only its datagrams are received; without, the socket is
   * "unconnected" again.
   */
  stream(
    remoteAddress: IpSocketAddress | undefined,
  ): [IncomingDatagramStream, OutgoingDatagramStream] {
    if (this.state.kind !== "bound") fail("invalid-state");
    if (remoteAddress) {
      this.checkPeer(remoteAddress);
      this.remote = remoteAddress;
      this.queue = this.queue.filter((d) => sameAddress(d.remoteAddress, remoteAddress));
    } else {
      this.remote = undefined;
    }
    return [new IncomingDatagramStream(this), new OutgoingDatagramStream(this)];
  }

  /** The bound local address. */
  localAddress(): IpSocketAddress {
    if (this.state.kind !== "bound") fail("invalid-state");
    const a = this.state.sock.address();
    return this.toWit(a.address, a.port) ?? fail("unknown");
  }

  /** The address the streams are "connected" to. */
  remoteAddress(): IpSocketAddress {
    if (this.state.kind !== "bound" || !this.remote) fail("invalid-state");
    return this.remote;
  }

  /** The family given at creation. */
  addressFamily(): IpAddressFamily {
    return this.family;
  }

  /** The unicast TTL / hop limit. */
  unicastHopLimit(): number {
    return this.hopLimit;
  }

  /** Sets the unicast TTL / hop limit (applied when bound). */
  setUnicastHopLimit(value: number): void {
    if (value === 0) fail("invalid-argument");
    this.hopLimit = value;
    if (this.state.kind === "bound") {
      try {
        this.state.sock.setTTL(value);
      } catch (e) {
        fail(toSocketErrorCode(e));
      }
    }
  }

  /** The receive buffer size (kept, not applied). */
  receiveBufferSize(): bigint {
    return this.receiveBuffer;
  }

  /** Sets the receive buffer size. */
  setReceiveBufferSize(value: bigint): void {
    if (value === 0n) fail("invalid-argument");
    this.receiveBuffer = value;
  }

  /** The send buffer size (kept, not applied). */
  sendBufferSize(): bigint {
    return this.sendBuffer;
  }

  /** Sets the send buffer size. */
  setSendBufferSize(value: bigint): void {
    if (value === 0n) fail("invalid-argument");
    this.sendBuffer = value;
  }

  /** Ready when a started bind has settled (and otherwise at once). */
  subscribe(): Pollable {
    return new Pollable(
      () => this.state.kind !== "bind-started" || this.state.done,
      () => this.changed.wait(),
    );
  }

  /** Up to `max` received datagrams; a pending socket error first. */
  takeReceived(max: number): IncomingDatagram[] {
    if (this.state.kind !== "bound") fail("invalid-state");
    this.throwPendingError();
    return this.queue.splice(0, max);
  }

  /** True when a datagram or an error waits (or the socket is gone). */
  get receivable(): boolean {
    return this.queue.length > 0 || this.pendingError !== undefined || this.state.kind !== "bound";
  }

  /** How many datagrams may be sent now. */
  sendPermits(): bigint {
    if (this.state.kind !== "bound") fail("invalid-state");
    this.throwPendingError();
    return SEND_PERMITS;
  }

  private throwPendingError(): void {
    const e = this.pendingError;
    if (e !== undefined) {
      this.pendingError = undefined;
      fail(e);
    }
  }

  /** Sends datagrams in order; stops at the first invalid one (an error if it is the first). */
  send(datagrams: OutgoingDatagram[]): bigint {
    if (this.state.kind !== "bound") fail("invalid-state");
    const sock = this.state.sock;
    let sent = 0;
    for (const d of datagrams.slice(0, Number(SEND_PERMITS))) {
      try {
        const to = this.target(d);
        if (d.data.length > MAX_DATAGRAM[this.family]) fail("datagram-too-large");
        sock.send(d.data, to.val.port, hostnameOf(to), (e) => {
          if (e) {
            this.pendingError = toSocketErrorCode(e);
            this.changed.notify();
          }
        });
        sent++;
      } catch (e) {
        if (sent === 0) throw e;
        break;
      }
    }
    return BigInt(sent);
  }

  private target(d: OutgoingDatagram): IpSocketAddress {
    if (this.remote) {
      if (d.remoteAddress && !sameAddress(d.remoteAddress, this.remote)) fail("invalid-argument");
      return this.remote;
    }
    if (!d.remoteAddress) fail("invalid-argument");
    this.checkPeer(d.remoteAddress);
    return d.remoteAddress;
  }

  /** Closes the socket (guest drop or process end). */
  close(): void {
    const s = this.state;
    this.state = { kind: "closed" };
    this.unregister();
    this.queue = [];
    if (s.kind === "bind-started" || s.kind === "bound") {
      try {
        s.sock?.close();
      } catch { /* already closed */ }
    }
    this.changed.notify();
  }

  /** The guest dropped the socket. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** Builds `wasi:sockets/udp` and `wasi:sockets/udp-create-socket` for one process. */
export function udpInterfaces(resources: ProcessResources): Record<string, unknown> {
  return {
    "wasi:sockets/udp": { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream },
    "wasi:sockets/udp-create-socket": {
      createUdpSocket(family: IpAddressFamily): UdpSocket {
        if (family !== "ipv4" && family !== "ipv6") fail("not-supported");
        return new UdpSocket(family, resources);
      },
    },
  };
}
