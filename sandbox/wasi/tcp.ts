/**
 * `wasi:sockets/tcp` and `wasi:sockets/tcp-create-socket` on Deno's TCP
 * (`Deno.listen`, `Deno.connect`). Every operation is non-blocking: a
 * `start-*` begins it, `finish-*` answers `would-block` until it is done,
 * and the socket's pollable wakes the guest when it is; only `wasi:io/poll`
 * suspends.
 *
 * Deno has no bind without listen, so `start-bind` binds with `Deno.listen`
 * (the port is reserved and `address-in-use` comes at once); `listen` then
 * starts accepting on that listener. A connect after an explicit bind to a
 * fixed port is `not-supported` (Deno cannot connect from a chosen local
 * address); a bind to port 0 is released and the connect picks its own port.
 *
 * Every socket is registered with the process's {@link ProcessResources}, so
 * listeners and connections end with the process.
 *
 * @module
 */

import { Pollable } from "./poll.ts";
import type { ProcessResources } from "./resources.ts";
import { InputStream, OutputStream } from "./streams.ts";
import { Signal } from "./signal.ts";
import { Acceptor } from "./tcp_acceptor.ts";
import { defaultTcpOptions, type TcpOptions, TcpSocketOptions } from "./tcp_options.ts";
import { SocketReader, SocketWriter } from "./socket_streams.ts";
import { fail, guard, type SocketErrorCode, toSocketErrorCode } from "./socket_errors.ts";
import {
  hostnameOf,
  type IpAddressFamily,
  type IpSocketAddress,
  isIpv4Mapped,
  isNotUnicast,
  isUnspecified,
  socketAddress,
} from "./socket_address.ts";
import type { Network } from "./network_capability.ts";

/** `shutdown-type`. */
export type ShutdownType = "receive" | "send" | "both";

/** A live connection with the guest's view of it. */
interface Connection {
  conn: Deno.TcpConn;
  reader: SocketReader;
  writer: SocketWriter;
}

type State =
  | { kind: "unbound" }
  | { kind: "bind-started"; listener: Deno.TcpListener }
  | { kind: "bound"; listener: Deno.TcpListener }
  | { kind: "listen-started"; listener: Deno.TcpListener }
  | { kind: "listening"; acceptor: Acceptor; local: Deno.NetAddr }
  | { kind: "connecting"; result?: { conn: Deno.TcpConn } | { code: SocketErrorCode } }
  | { kind: "connected"; connection: Connection }
  | { kind: "closed" };

/** How long a connection of an ended process stays half-open for the peer to read its last bytes. */
const LINGER_MS = 200;

function closeQuietly(c: { close(): void }): void {
  try {
    c.close();
  } catch { /* already closed */ }
}

/** `wasi:sockets/tcp.tcp-socket`. */
export class TcpSocket extends TcpSocketOptions {
  private state: State = { kind: "unbound" };
  /** True when the guest bound to port 0: the reservation may be given up for a connect. */
  private boundToAnyPort = false;
  private readonly changed = new Signal();
  private readonly unregister: () => void;

  /**
   * A new unbound socket (guests get one from `create-tcp-socket`).
   * @param family the address family of every address this socket takes
   * @param resources where the socket registers itself for release at process end
   * @param options options inherited from a listener (accepted sockets)
   */
  constructor(
    private readonly family: IpAddressFamily,
    private readonly resources: ProcessResources,
    options: TcpOptions = defaultTcpOptions(),
  ) {
    super(options);
    this.unregister = resources.add(() => this.close());
  }

  /** An accepted connection as a connected socket (the listener's family and options). */
  private static accepted(listener: TcpSocket, conn: Deno.TcpConn): TcpSocket {
    const s = new TcpSocket(listener.family, listener.resources, { ...listener.options });
    s.state = { kind: "connected", connection: s.connection(conn) };
    return s;
  }

  private connection(conn: Deno.TcpConn): Connection {
    if (this.options.keepAlive) {
      try {
        conn.setKeepAlive(true);
      } catch { /* best effort, as for a socket option set before connecting */ }
    }
    return { conn, reader: new SocketReader(conn), writer: new SocketWriter(conn) };
  }

  private streams(c: Connection): [InputStream, OutputStream] {
    return [new InputStream(c.reader), new OutputStream(c.writer)];
  }

  /** Checks a guest's address against this socket's family (WASI's `invalid-argument` cases). */
  private checkAddress(addr: IpSocketAddress): void {
    if (addr.tag !== this.family || isIpv4Mapped(addr) || isNotUnicast(addr)) {
      fail("invalid-argument");
    }
  }

  /** An address Deno reported, in this socket's family (IPv4 peers of an IPv6 socket become IPv4-mapped). */
  private toWit(a: Deno.NetAddr): IpSocketAddress {
    let addr = socketAddress(a.hostname, a.port) ?? fail("unknown");
    if (this.family === "ipv6" && addr.tag === "ipv4") {
      const [w, x, y, z] = addr.val.address;
      addr = socketAddress(`::ffff:${w}.${x}.${y}.${z}`, a.port)!;
    }
    return addr;
  }

  /** Binds (and so reserves) the local address. */
  startBind(_network: Network, localAddress: IpSocketAddress): void {
    if (this.state.kind !== "unbound") fail("invalid-state");
    this.checkAddress(localAddress);
    const listener = guard(() =>
      Deno.listen({
        hostname: hostnameOf(localAddress),
        port: localAddress.val.port,
        transport: "tcp",
      })
    );
    this.state = { kind: "bind-started", listener };
    this.boundToAnyPort = localAddress.val.port === 0;
  }

  /** Completes `start-bind`. */
  finishBind(): void {
    if (this.state.kind !== "bind-started") fail("not-in-progress");
    this.state = { kind: "bound", listener: this.state.listener };
  }

  /** Starts connecting; `finish-connect` gives the streams. */
  startConnect(_network: Network, remoteAddress: IpSocketAddress): void {
    const s = this.state;
    if (s.kind === "bound") {
      if (!this.boundToAnyPort) fail("not-supported");
    } else if (s.kind !== "unbound") {
      fail("invalid-state");
    }
    this.checkAddress(remoteAddress);
    if (isUnspecified(remoteAddress) || remoteAddress.val.port === 0) fail("invalid-argument");
    if (s.kind === "bound") closeQuietly(s.listener);
    const connecting: State & { kind: "connecting" } = { kind: "connecting" };
    this.state = connecting;
    Deno.connect({
      hostname: hostnameOf(remoteAddress),
      port: remoteAddress.val.port,
      transport: "tcp",
    })
      .then(
        (conn) => {
          if (this.state === connecting) connecting.result = { conn };
          else closeQuietly(conn); // closed meanwhile
        },
        (e) => (connecting.result = { code: toSocketErrorCode(e) }),
      )
      .finally(() => this.changed.notify());
  }

  /** Completes `start-connect`: the input and output streams of the connection. */
  finishConnect(): [InputStream, OutputStream] {
    const s = this.state;
    if (s.kind !== "connecting") fail("not-in-progress");
    if (!s.result) fail("would-block");
    if ("code" in s.result) {
      this.state = { kind: "closed" };
      fail(s.result.code);
    }
    const connection = this.connection(s.result.conn);
    this.state = { kind: "connected", connection };
    return this.streams(connection);
  }

  /** Starts listening on the bound address. */
  startListen(): void {
    if (this.state.kind !== "bound") fail("invalid-state");
    this.state = { kind: "listen-started", listener: this.state.listener };
  }

  /** Completes `start-listen`: from now on connections are accepted in the background. */
  finishListen(): void {
    const s = this.state;
    if (s.kind !== "listen-started") fail("not-in-progress");
    const local = s.listener.addr as Deno.NetAddr;
    this.state = {
      kind: "listening",
      acceptor: new Acceptor(s.listener, this.options.backlog, this.changed),
      local,
    };
  }

  /** Takes an accepted connection: its socket and streams; `would-block` when none waits. */
  accept(): [TcpSocket, InputStream, OutputStream] {
    if (this.state.kind !== "listening") fail("invalid-state");
    const conn = this.state.acceptor.take();
    const socket = TcpSocket.accepted(this, conn);
    const c = (socket.state as State & { kind: "connected" }).connection;
    return [socket, ...socket.streams(c)];
  }

  /** The bound local address. */
  localAddress(): IpSocketAddress {
    const s = this.state;
    switch (s.kind) {
      case "bind-started":
      case "bound":
      case "listen-started":
        return this.toWit(s.listener.addr as Deno.NetAddr);
      case "listening":
        return this.toWit(s.local);
      case "connected":
        return this.toWit(s.connection.conn.localAddr);
      default:
        return fail("invalid-state");
    }
  }

  /** The connected peer's address. */
  remoteAddress(): IpSocketAddress {
    if (this.state.kind !== "connected") fail("invalid-state");
    return this.toWit(this.state.connection.conn.remoteAddr);
  }

  /** True once `finish-listen` succeeded. */
  isListening(): boolean {
    return this.state.kind === "listening";
  }

  /** The family given at creation. */
  addressFamily(): IpAddressFamily {
    return this.family;
  }

  /** The queue length of not yet accepted connections. */
  setListenBacklogSize(value: bigint): void {
    if (value === 0n) fail("invalid-argument");
    const s = this.state;
    if (s.kind === "connecting" || s.kind === "connected") fail("invalid-state");
    this.options.backlog = Number(value > 4096n ? 4096n : value);
    if (s.kind === "listening") s.acceptor.setBacklog(this.options.backlog);
  }

  /** The connection, when connected. */
  protected connectedConn(): Deno.TcpConn | undefined {
    return this.state.kind === "connected" ? this.state.connection.conn : undefined;
  }

  /** Ready when a pending connect has settled or, when listening, a connection waits. */
  subscribe(): Pollable {
    return new Pollable(() => this.ready(), () => this.changed.wait());
  }

  private ready(): boolean {
    const s = this.state;
    if (s.kind === "connecting") return s.result !== undefined;
    if (s.kind === "listening") return s.acceptor.ready;
    return true;
  }

  /** Shuts down reading, writing or both of a connection. */
  shutdown(how: ShutdownType): void {
    if (this.state.kind !== "connected") fail("invalid-state");
    const { reader, writer } = this.state.connection;
    if (how !== "send") reader.stop();
    if (how !== "receive") writer.shutdown();
  }

  /**
   * Closes whatever the socket holds, at once (process end). A pending
   * connect closes its connection when it arrives. Resolves when a
   * listener's port is free.
   */
  close(): Promise<void> {
    let freed = Promise.resolve();
    const s = this.state;
    this.state = { kind: "closed" };
    this.unregister();
    switch (s.kind) {
      case "bind-started":
      case "bound":
      case "listen-started":
        closeQuietly(s.listener);
        break;
      case "listening":
        freed = s.acceptor.close();
        break;
      case "connecting":
        if (s.result && "conn" in s.result) closeQuietly(s.result.conn);
        break;
      case "connected": {
        // The process ended (it did not crash: a kill ends the whole sandbox).
        // Bytes it wrote last are still queued: write them, send FIN, and
        // close a moment later, so the peer reads the answer rather than a
        // reset caused by input the process never read.
        const { conn, reader, writer } = s.connection;
        reader.stop();
        writer.flush().catch(() => {}).finally(() => {
          try {
            conn.closeWrite();
          } catch { /* already closed */ }
          setTimeout(() => closeQuietly(conn), LINGER_MS);
        });
        break;
      }
    }
    this.changed.notify();
    return freed;
  }

  /**
   * The guest dropped the socket: a connection first writes what is queued
   * (a guest may drop right after a write), then closes; the process's end
   * still closes it at once.
   */
  [Symbol.dispose](): void {
    const s = this.state;
    if (s.kind === "connected" && s.connection.writer.busy) {
      s.connection.reader.stop();
      s.connection.writer.flush().catch(() => {}).finally(() => {
        if (this.state === s) this.close();
      });
      return;
    }
    this.close();
  }
}

/** Builds `wasi:sockets/tcp` and `wasi:sockets/tcp-create-socket` for one process. */
export function tcpInterfaces(resources: ProcessResources): Record<string, unknown> {
  return {
    "wasi:sockets/tcp": { TcpSocket },
    "wasi:sockets/tcp-create-socket": {
      createTcpSocket(family: IpAddressFamily): TcpSocket {
        if (family !== "ipv4" && family !== "ipv6") fail("not-supported");
        return new TcpSocket(family, resources);
      },
    },
  };
}
