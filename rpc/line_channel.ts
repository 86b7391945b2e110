/**
 * Newline-delimited JSON over a byte stream (a socket, a pipe): the writing
 * side; `line_splitter.ts` reads. Messages sent in one turn of the event
 * loop go out in one write: a write to a pipe is an async op with its
 * stream machinery (the core's sandbox pipe spent ~7 % of its time there
 * with 10 callers), and a burst of calls or answers is common.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Something bytes can be written to directly, like a `Deno.Conn`: cheaper
 * to start than its `writable` (Deno builds socket streams on first use,
 * 6 ms of a CLI command's start here).
 */
export interface RawWriter {
  /** Writes some of `p`; resolves with how many bytes. */
  write(p: Uint8Array): Promise<number>;
}

/** A bound on the bytes a {@link LineWriter} holds for a peer that does not read. */
export interface QueueBound {
  /**
   * The most bytes handed to the stream and not yet written to the peer. A
   * write that would pass it, while something waits already, overflows (one
   * message longer than the bound still goes when nothing waits).
   */
  maxBytes: number;
  /**
   * Called once, at the overflow, with the bytes waiting then: the writer
   * drops everything from then on; the owner closes the connection.
   */
  overflow(queuedBytes: number): void;
}

/** Writes JSON messages, one per line, in order. */
export class LineWriter {
  private writer: { write(b: Uint8Array): Promise<unknown>; close(): Promise<unknown> };
  private broken = false;
  private pending: string[] = [];
  private queued = 0;

  /**
   * Wraps a writable byte stream, or a raw writer (whose writes it keeps in
   * order). With `bound`, what waits for a peer that does not read is
   * bounded (the control socket's clients: `client_queue_mib`); without, it
   * is not (a sandbox's pipe, whose reader is ours).
   */
  constructor(out: WritableStream<Uint8Array> | RawWriter, private bound?: QueueBound) {
    // Not `instanceof WritableStream`: naming that global makes Deno load its streams (6 ms).
    this.writer = "getWriter" in out ? out.getWriter() : inOrder(out);
  }

  /** Bytes handed to the stream and not yet written to the peer. */
  get queuedBytes(): number {
    return this.queued;
  }

  /** Sends one message (written at the end of this turn); silently dropped once the peer is gone. */
  send(msg: unknown): void {
    if (this.broken) return;
    if (this.pending.push(JSON.stringify(msg)) === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join("\n") + "\n";
    this.pending = [];
    if (this.broken) return;
    const bytes = encoder.encode(text);
    if (this.bound && this.queued > 0 && this.queued + bytes.length > this.bound.maxBytes) {
      this.broken = true;
      this.bound.overflow(this.queued + bytes.length);
      return;
    }
    this.queued += bytes.length;
    this.writer.write(bytes).then(
      () => (this.queued -= bytes.length),
      () => (this.broken = true),
    );
  }

  /** Writes what is pending and closes the stream. */
  async close(): Promise<void> {
    this.flush();
    try {
      await this.writer.close();
    } catch { /* already closed */ }
  }
}

/** A raw writer's writes, each whole and one after the other. */
function inOrder(
  raw: RawWriter,
): { write(b: Uint8Array): Promise<unknown>; close(): Promise<unknown> } {
  let chain: Promise<unknown> = Promise.resolve();
  return {
    write(b: Uint8Array) {
      chain = chain.then(async () => {
        for (let n = 0; n < b.length;) n += await raw.write(b.subarray(n));
      });
      return chain;
    },
    close: () => chain,
  };
}
