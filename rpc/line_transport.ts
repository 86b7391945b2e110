/**
 * A transport over a byte stream, one JSON-RPC message per line (section
 * 4.1): lines split by the one line splitter, written by `LineWriter`. Lines
 * that are not JSON-RPC messages are left out.
 *
 * @module
 */

import { LineWriter, type RawWriter } from "./line_channel.ts";
import {
  DEFAULT_MAX_LINE,
  LineSplitter,
  type RawReader,
  readLines,
  streamLines,
} from "./line_splitter.ts";
import { type Message, parseLine } from "./message.ts";
import type { Transport } from "./transport.ts";

/** A byte stream both ways, e.g. a `Deno.Conn`. */
export interface Duplex {
  /** The peer's bytes. */
  readable: ReadableStream<Uint8Array>;
  /** Our bytes to the peer. */
  writable: WritableStream<Uint8Array>;
  /** Ends both ways. */
  close(): void;
}

/**
 * A connection read and written directly (a `Deno.Conn`), without the
 * streams Deno builds on first use of `readable`/`writable`.
 */
export interface RawDuplex extends RawWriter, RawReader {
  /** Ends both ways. */
  close(): void;
}

/** A `Deno.Conn` as a {@link RawDuplex}: its read, write and close, never its streams. */
export function rawDuplex(conn: Deno.Conn): RawDuplex {
  return { read: (p) => conn.read(p), write: (p) => conn.write(p), close: () => conn.close() };
}

/** JSON-RPC messages over a byte stream, one per line. */
export class LineTransport implements Transport {
  private out: LineWriter;
  /** Receives each message of the peer, in order. */
  onmessage?: (msg: Message) => void;
  /** Hears once that the stream has ended. */
  onclose?: () => void;

  /**
   * Wraps a stream; nothing is read before `start`.
   * @param stream the bytes both ways
   * @param maxLine the longest line read, in bytes (longer ones are left out)
   */
  constructor(private stream: Duplex | RawDuplex, private maxLine = DEFAULT_MAX_LINE) {
    this.out = new LineWriter("readable" in stream ? stream.writable : stream);
  }

  /** Starts reading lines; `onclose` follows the end of the stream. */
  start(): void {
    const deliver = (line: string) => {
      const p = parseLine(line);
      if (p.kind === "request" || p.kind === "response") this.onmessage?.(p.msg);
    };
    (async () => {
      try {
        if ("readable" in this.stream) {
          for await (const line of streamLines(this.stream.readable, this.maxLine)) deliver(line);
        } else await readLines(this.stream, new LineSplitter(this.maxLine, { line: deliver }));
      } catch { /* closed */ }
      this.onclose?.();
    })();
  }

  /** Writes one message as a line. */
  send(msg: Message): void {
    this.out.send(msg);
  }

  /** Closes the stream (reading ends, then `onclose`). */
  close(): void {
    try {
      this.stream.close();
    } catch { /* closed */ }
  }
}
