/**
 * The socket options of `wasi:sockets/tcp.tcp-socket`: validated as WASI
 * asks (`invalid-argument` for zero values) and kept, so that a guest reads
 * back what it set and accepted sockets inherit them. Only keep-alive
 * reaches the connection: Deno has no other TCP options.
 *
 * @module
 */

import { fail, guard } from "./socket_errors.ts";

const SECOND = 1_000_000_000n;

/** Socket options a guest may set; accepted sockets inherit them. */
export interface TcpOptions {
  backlog: number;
  keepAlive: boolean;
  keepAliveIdle: bigint;
  keepAliveInterval: bigint;
  keepAliveCount: number;
  hopLimit: number;
  receiveBuffer: bigint;
  sendBuffer: bigint;
}

/** The options of a new socket (Linux's defaults). */
export function defaultTcpOptions(): TcpOptions {
  return {
    backlog: 128,
    keepAlive: false,
    keepAliveIdle: 7200n * SECOND,
    keepAliveInterval: 75n * SECOND,
    keepAliveCount: 9,
    hopLimit: 64,
    receiveBuffer: 128n * 1024n,
    sendBuffer: 128n * 1024n,
  };
}

/** The option methods of a TCP socket; the socket itself extends this. */
export abstract class TcpSocketOptions {
  /** @param options the socket's options, owned by it */
  constructor(protected readonly options: TcpOptions) {}

  /** The connection, when the socket is connected (to apply keep-alive to). */
  protected abstract connectedConn(): Deno.TcpConn | undefined;

  /** `SO_KEEPALIVE`. */
  keepAliveEnabled(): boolean {
    return this.options.keepAlive;
  }

  /** Sets `SO_KEEPALIVE` (applied to the connection when there is one). */
  setKeepAliveEnabled(value: boolean): void {
    this.options.keepAlive = value;
    const conn = this.connectedConn();
    if (conn) guard(() => conn.setKeepAlive(value));
  }

  /** The idle time before keep-alive probes (kept, not applied: Deno has no such option). */
  keepAliveIdleTime(): bigint {
    return this.options.keepAliveIdle;
  }

  /** Sets the idle time before keep-alive probes. */
  setKeepAliveIdleTime(value: bigint): void {
    if (value <= 0n) fail("invalid-argument");
    this.options.keepAliveIdle = value;
  }

  /** The interval between keep-alive probes (kept, not applied). */
  keepAliveInterval(): bigint {
    return this.options.keepAliveInterval;
  }

  /** Sets the interval between keep-alive probes. */
  setKeepAliveInterval(value: bigint): void {
    if (value <= 0n) fail("invalid-argument");
    this.options.keepAliveInterval = value;
  }

  /** The number of keep-alive probes (kept, not applied). */
  keepAliveCount(): number {
    return this.options.keepAliveCount;
  }

  /** Sets the number of keep-alive probes. */
  setKeepAliveCount(value: number): void {
    if (value === 0) fail("invalid-argument");
    this.options.keepAliveCount = value;
  }

  /** The TTL / hop limit (kept, not applied). */
  hopLimit(): number {
    return this.options.hopLimit;
  }

  /** Sets the TTL / hop limit. */
  setHopLimit(value: number): void {
    if (value === 0) fail("invalid-argument");
    this.options.hopLimit = value;
  }

  /** The receive buffer size (kept, not applied). */
  receiveBufferSize(): bigint {
    return this.options.receiveBuffer;
  }

  /** Sets the receive buffer size. */
  setReceiveBufferSize(value: bigint): void {
    if (value === 0n) fail("invalid-argument");
    this.options.receiveBuffer = value;
  }

  /** The send buffer size (kept, not applied). */
  sendBufferSize(): bigint {
    return this.options.sendBuffer;
  }

  /** Sets the send buffer size. */
  setSendBufferSize(value: bigint): void {
    if (value === 0n) fail("invalid-argument");
    this.options.sendBuffer = value;
  }
}
