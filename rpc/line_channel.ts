/**
 * Newline-delimited JSON over a byte stream (a socket, a pipe): the writing
 * side; `line_splitter.ts` reads.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Writes JSON messages, one per line, in order. */
export class LineWriter {
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private broken = false;

  /** Wraps a writable byte stream. */
  constructor(writable: WritableStream<Uint8Array>) {
    this.writer = writable.getWriter();
  }

  /** Sends one message; silently dropped once the peer is gone. */
  send(msg: unknown): void {
    if (this.broken) return;
    this.writer.write(encoder.encode(JSON.stringify(msg) + "\n")).catch(() => (this.broken = true));
  }

  /** Closes the stream. */
  async close(): Promise<void> {
    try {
      await this.writer.close();
    } catch { /* already closed */ }
  }
}
