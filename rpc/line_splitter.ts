/**
 * The one line splitter of every channel (a guest's stdout and stderr, the
 * sandbox pipe, the control socket, build output): bytes in, lines out, in
 * linear time, each line at most `max` bytes. A line that grows past the
 * limit is dropped as it arrives (memory stays bounded) and reported once;
 * splitting resumes after its newline.
 *
 * @module
 */

/** The default longest line of every channel: 16 MiB (`line_mib` in `config/limits.json`). */
export const DEFAULT_MAX_LINE = 16 * 2 ** 20;

import { invalidUtf8At } from "./utf8_check.ts";

const NEWLINE = 10;
const RETURN = 13;

/** What a splitter does with what it finds. */
export interface LineHandlers {
  /** Each complete line, without its `\n` (and without a `\r` before it). */
  line(text: string): void;
  /** A line passed `max` bytes; `seen` is how many had arrived when it did. */
  tooLong?(seen: number): void;
  /**
   * A line that passed `max` ended: its first and last {@link EDGE_BYTES}
   * bytes and its whole length (to answer it: the id of a JSON-RPC message
   * is at one end or the other).
   */
  skipped?(line: SkippedLine): void;
  /**
   * A line that is not valid UTF-8 (`utf8_check.ts`): the offset of its first
   * bad byte, and the line with U+FFFD for its bad bytes (to find its id).
   * Without this handler such a line goes to `line` with the U+FFFDs in it.
   */
  invalidUtf8?(offset: number, text: string): void;
}

/** How many bytes of each end of an over-long line `LineHandlers.skipped` gets. */
export const EDGE_BYTES = 1024;

/** What is kept of a line that passed the limit. */
export interface SkippedLine {
  /** Its first bytes, as text. */
  head: string;
  /** Its last bytes, as text. */
  tail: string;
  /** Its length in bytes. */
  bytes: number;
}

/** Splits a byte stream into lines (see the module doc). */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private skipping = false;
  private decoder = new TextDecoder();
  /** Of the line being skipped: its head, its tail so far, its length so far. */
  private head = new Uint8Array(0);
  private tail = new Uint8Array(0);
  private skippedBytes = 0;

  /**
   * @param max the longest line kept, in bytes
   * @param on receives lines and over-long line reports
   */
  constructor(readonly max: number, private on: LineHandlers) {}

  /** Takes the next bytes of the stream (kept only as long as a line is incomplete). */
  push(bytes: Uint8Array): void {
    let start = 0;
    while (start <= bytes.length) {
      const nl = bytes.indexOf(NEWLINE, start);
      const end = nl < 0 ? bytes.length : nl;
      if (!this.skipping && end > start) this.keep(bytes.subarray(start, end), nl < 0);
      else if (this.skipping && this.on.skipped) this.skip(bytes.subarray(start, end));
      if (nl < 0) return;
      if (this.skipping) this.endSkipped();
      else this.emit();
      start = nl + 1;
    }
  }

  /** Ends the stream: a last line without a newline is handed on. */
  end(): void {
    if (!this.skipping && this.size > 0) this.emit();
    if (this.skipping) this.endSkipped();
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }

  private keep(piece: Uint8Array, copy: boolean): void {
    const seen = this.size + piece.length;
    if (seen > this.max) {
      if (this.on.skipped) {
        this.parts.push(piece);
        const all = this.joined();
        this.head = all.slice(0, EDGE_BYTES);
        this.tail = all.slice(Math.max(0, all.length - EDGE_BYTES));
        this.skippedBytes = all.length;
      }
      this.parts = [];
      this.size = 0;
      this.skipping = true;
      this.on.tooLong?.(seen);
      return;
    }
    // A piece that ends a line is used before push returns; one that does not is kept: copy it.
    this.parts.push(copy ? piece.slice() : piece);
    this.size = seen;
  }

  /** The kept parts as one array (once per over-long line). */
  private joined(): Uint8Array {
    const all = new Uint8Array(this.parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of this.parts) (all.set(p, at), at += p.length);
    return all;
  }

  /** Counts skipped bytes and keeps the last of them (the tail). */
  private skip(piece: Uint8Array): void {
    this.skippedBytes += piece.length;
    if (piece.length >= EDGE_BYTES) {
      this.tail = piece.slice(piece.length - EDGE_BYTES);
      return;
    }
    const tail = new Uint8Array(Math.min(EDGE_BYTES, this.tail.length + piece.length));
    const fromOld = tail.length - piece.length;
    tail.set(this.tail.subarray(this.tail.length - fromOld), 0);
    tail.set(piece, fromOld);
    this.tail = tail;
  }

  private endSkipped(): void {
    this.skipping = false;
    if (!this.on.skipped) return;
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    const line = {
      head: text(this.head),
      tail: text(this.tail).replace(/\r$/, ""),
      bytes: this.skippedBytes,
    };
    this.head = this.tail = new Uint8Array(0);
    this.skippedBytes = 0;
    this.on.skipped(line);
  }

  private emit(): void {
    let bytes: Uint8Array;
    if (this.parts.length === 1) bytes = this.parts[0];
    else {
      bytes = new Uint8Array(this.size);
      let at = 0;
      for (const p of this.parts) (bytes.set(p, at), at += p.length);
    }
    this.parts = [];
    this.size = 0;
    const n = bytes.length > 0 && bytes[bytes.length - 1] === RETURN
      ? bytes.length - 1
      : bytes.length;
    const text = this.decoder.decode(bytes.subarray(0, n));
    // A replacement character is rare: only then are the bytes checked.
    if (this.on.invalidUtf8 && text.includes("\uFFFD")) {
      const bad = invalidUtf8At(bytes.subarray(0, n));
      if (bad >= 0) return this.on.invalidUtf8(bad, text);
    }
    this.on.line(text);
  }
}

/**
 * The lines of a byte stream, each at most `max` bytes; `tooLong` hears of
 * each longer one, and `invalidUtf8` of each that is not UTF-8 (when given),
 * which are left out.
 */
export async function* streamLines(
  stream: ReadableStream<Uint8Array>,
  max = DEFAULT_MAX_LINE,
  tooLong?: (seen: number) => void,
  invalidUtf8?: (offset: number, text: string) => void,
): AsyncGenerator<string> {
  let ready: string[] = [];
  const splitter = new LineSplitter(max, { line: (l) => ready.push(l), tooLong, invalidUtf8 });
  for await (const chunk of stream) {
    splitter.push(chunk);
    if (ready.length) {
      const out = ready;
      ready = [];
      yield* out;
    }
  }
  splitter.end();
  yield* ready;
}

/** Something read directly, like `Deno.stdin` or a `Deno.Conn`. */
export interface RawReader {
  /** Reads into `p`; resolves with how many bytes, or null at the end. */
  read(p: Uint8Array): Promise<number | null>;
}

/**
 * Reads `raw` to its end into `splitter`, without web streams (Deno loads
 * them on first use, ~6 ms, and passes every chunk through them).
 */
export async function readLines(raw: RawReader, splitter: LineSplitter): Promise<void> {
  const buf = new Uint8Array(256 * 1024);
  for (let n = await raw.read(buf); n !== null; n = await raw.read(buf)) {
    splitter.push(buf.subarray(0, n));
  }
  splitter.end();
}

/**
 * The longest line of a channel that carries, JSON-encoded, lines of
 * another channel limited to `max` bytes (the sandbox pipe, answers to the
 * CLI): JSON's escapes make a byte at most six.
 */
export function carrierLineLimit(max: number): number {
  return max * 6 + 2 ** 20;
}
