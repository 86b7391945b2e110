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

/** Writes JSON messages, one per line, in order. */
export class LineWriter {
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private broken = false;
  private pending: string[] = [];

  /** Wraps a writable byte stream. */
  constructor(writable: WritableStream<Uint8Array>) {
    this.writer = writable.getWriter();
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
    this.writer.write(encoder.encode(text)).catch(() => (this.broken = true));
  }

  /** Writes what is pending and closes the stream. */
  async close(): Promise<void> {
    this.flush();
    try {
      await this.writer.close();
    } catch { /* already closed */ }
  }
}
