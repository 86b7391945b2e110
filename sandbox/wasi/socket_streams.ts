/**
 * The byte source and sink behind the streams of a connected TCP socket. The
 * reader fills a bounded buffer in the background and wakes pollables when
 * bytes, the end or an error arrive; the writer queues bytes and writes them
 * in order in the background, so a guest's `write` never waits and its
 * `blocking-flush` waits for the queue. Failures reach the guest as
 * `last-operation-failed` with a {@link SocketStreamError}.
 *
 * @module
 */

import { Signal } from "./signal.ts";
import type { ByteSink } from "./streams.ts";
import { IoError } from "./streams.ts";
import { SocketStreamError } from "./socket_errors.ts";
import { BackgroundReader, READ_AHEAD } from "./read_buffer.ts";

/** How many received bytes are buffered before the reader stops reading. */

/** Reads a connection in the background into a bounded buffer. */
export class SocketReader extends BackgroundReader {
  private readonly chunk = new Uint8Array(READ_AHEAD);

  /** Starts reading `conn` at once. */
  constructor(private conn: Deno.Conn) {
    super();
    this.pump();
  }

  protected async next(): Promise<Uint8Array | null> {
    const n = await this.conn.read(this.chunk);
    return n === null ? null : this.chunk.slice(0, n);
  }

  protected failure(error: unknown): SocketStreamError {
    return SocketStreamError.from(error, "read");
  }

  /** Stops reading: the guest sees the end of the stream (`shutdown(receive)`, or the socket closed). */
  stop(): void {
    this.buffer.clear();
  }
}

/** Writes to a connection in the background, in order. */
export class SocketWriter implements ByteSink {
  private queue: Uint8Array[] = [];
  private writing = false;
  private shut = false;
  private error: SocketStreamError | undefined;
  private readonly drained = new Signal();

  /** Writes to `conn`. */
  constructor(private conn: Deno.Conn) {}

  /** Queues bytes; throws the failure of an earlier write, if any. */
  write(bytes: Uint8Array): void {
    if (this.error) throw this.error;
    if (this.shut) throw new IoError("the socket's send side was shut down");
    if (bytes.length === 0) return;
    this.queue.push(bytes);
    this.pump();
  }

  private async pump(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const bytes = this.queue[0];
        let off = 0;
        while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
        this.queue.shift();
      }
    } catch (e) {
      this.error ??= SocketStreamError.from(e, "write");
      this.queue = [];
    } finally {
      this.writing = false;
      this.drained.notify();
    }
  }

  /** Resolves when every queued byte is written; rejects with the failure of a write. */
  async flush(): Promise<void> {
    while (this.writing) await this.drained.wait();
    if (this.error) throw this.error;
  }

  /** True while bytes are queued. */
  get busy(): boolean {
    return this.writing;
  }

  /** `shutdown(send)`: refuses further writes and half-closes the connection once the queue is written. */
  shutdown(): void {
    if (this.shut) return;
    this.shut = true;
    this.flush().then(() => this.conn.closeWrite()).catch(() => {});
  }
}
