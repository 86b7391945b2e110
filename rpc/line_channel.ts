/**
 * Newline-delimited JSON over a byte stream pair (a TCP connection, pipes):
 * the transport of the control socket.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Splits a byte stream into lines (without the newline). */
export async function* readLines(readable: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      yield line.endsWith("\r") ? line.slice(0, -1) : line;
    }
  }
  if (buffer !== "") yield buffer;
}

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
