/**
 * The accept queue of a listening TCP socket: accepts connections in the
 * background, up to the backlog, so that `accept` is non-blocking and the
 * socket's pollable is ready while a connection waits.
 *
 * @module
 */

import type { Signal } from "./signal.ts";
import { fail, toSocketErrorCode } from "./socket_errors.ts";

/** Accepts connections of a listener into a bounded queue. */
export class Acceptor {
  private pending: Deno.TcpConn[] = [];
  private error: unknown;
  private running = false;
  private closed = false;
  /** The accept loop now running, or the last one (settled). */
  private loop: Promise<void> = Promise.resolve();

  /**
   * Starts accepting at once.
   * @param listener the listener, owned by the acceptor from now on
   * @param backlog how many accepted connections may wait for the guest
   * @param changed notified when a connection or an error arrives
   */
  constructor(
    private listener: Deno.TcpListener,
    private backlog: number,
    private changed: Signal,
  ) {
    this.run();
  }

  private run(): void {
    if (this.running || this.closed || this.error !== undefined) return;
    this.running = true;
    this.loop = this.accepting();
  }

  private async accepting(): Promise<void> {
    try {
      while (!this.closed && this.pending.length < this.backlog) {
        const conn = await this.listener.accept();
        if (this.closed) {
          conn.close();
          break;
        }
        this.pending.push(conn);
        this.changed.notify();
      }
    } catch (e) {
      if (!this.closed) this.error = e;
    } finally {
      this.running = false;
      this.changed.notify();
    }
  }

  /** True when `take` will not say `would-block`. */
  get ready(): boolean {
    return this.pending.length > 0 || this.error !== undefined || this.closed;
  }

  /** The next accepted connection; `would-block` when none waits, or the accept error (once). */
  take(): Deno.TcpConn {
    const conn = this.pending.shift();
    if (conn) {
      this.run();
      return conn;
    }
    if (this.error !== undefined) {
      const e = this.error;
      this.error = undefined;
      this.run();
      return fail(toSocketErrorCode(e));
    }
    return fail(this.closed ? "invalid-state" : "would-block");
  }

  /** Changes the backlog; a larger one resumes accepting. */
  setBacklog(n: number): void {
    this.backlog = n;
    this.run();
  }

  /**
   * Closes the listener and every connection not taken yet. Resolves when
   * the port is free: Deno frees it only once the pending accept has ended,
   * a turn of the event loop after `close`.
   */
  close(): Promise<void> {
    if (this.closed) return this.loop;
    this.closed = true;
    try {
      this.listener.close();
    } catch { /* already closed */ }
    for (const c of this.pending) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    this.pending = [];
    this.changed.notify();
    return this.loop;
  }
}
