/**
 * The journal's rows from the core's thread to the writer's worker through
 * shared memory: a ring of bytes (each row as its JSON text and `,\n`,
 * which JSON text never holds raw) that the core appends to and the worker
 * drains on its own timer, so a hand-off costs the core no `postMessage`
 * and the worker no message event.
 * The worker, finding nothing to drain, sleeps on a flag the core clears
 * (and wakes it with `Atomics.notify`) at the next row: one wake-up per burst
 * of rows, none while rows keep coming. Bytes that do not fit wait on the
 * core's side, in order, and go in as the worker makes room; a row longer
 * than the ring goes in pieces (the reader joins them). A row is encoded
 * straight into the ring and the reader parses what it drained with one
 * `JSON.parse`: ~1 µs a row each side, about a structured clone's cost.
 *
 * @module
 */

import type { Row } from "./journal_row.ts";

/** Control words (Int32) at the start of the buffer. */
const HEAD = 0; // bytes written, mod 2^32
const TAIL = 1; // bytes read, mod 2^32
const ASLEEP = 2; // 1 while the reader waits for a row
const CONTROL_BYTES = 16;

/** The ring's size by default (bytes; a power of two): ~10,000 short rows. */
export const RING_BYTES = 1 << 21;

/** What ends each row's text (after a comma). */
const NEWLINE = 0x0a;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Shared memory for a ring of `bytes` (a power of two) data bytes. */
export function ringBuffer(bytes = RING_BYTES): SharedArrayBuffer {
  if (bytes < 8 || (bytes & (bytes - 1)) !== 0) {
    throw new RangeError("a ring's size is a power of two");
  }
  return new SharedArrayBuffer(CONTROL_BYTES + bytes);
}

/** The core's end: appends rows, never blocks. */
export class RingWriter {
  private ctl: Int32Array;
  private data: Uint8Array;
  private mask: number;
  /** Encoded rows not yet in the ring, oldest first from `first`. */
  private waiting: Uint8Array[] = [];
  private first = 0;
  /** How much of `waiting[first]` is already in the ring. */
  private waitingAt = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.ctl = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.data = new Uint8Array(buffer, CONTROL_BYTES);
    this.mask = this.data.length - 1;
  }

  /** Appends a row (to the waiting bytes while the ring is full); wakes a sleeping reader. */
  put(row: Row): void {
    const text = JSON.stringify(row) + ",\n";
    if (!this.backlog) {
      // Straight into the ring when it fits before the end; bytes past HEAD mean nothing until
      // it moves, so a row that does not fit is simply written again below.
      const head = Atomics.load(this.ctl, HEAD);
      const from = head & this.mask;
      const room = Math.min(
        this.data.length - ((head - Atomics.load(this.ctl, TAIL)) >>> 0),
        this.data.length - from,
      );
      const r = encoder.encodeInto(text, this.data.subarray(from, from + room));
      if (r.read === text.length) return this.publish(head, (head + r.written) | 0);
    }
    this.waiting.push(encoder.encode(text));
    this.push();
  }

  /** True while bytes wait for room in the ring. */
  get backlog(): boolean {
    return this.first < this.waiting.length;
  }

  /** Moves waiting bytes into the ring as far as they fit; wakes the reader if it sleeps. */
  push(): void {
    const head = Atomics.load(this.ctl, HEAD);
    let at = head;
    while (this.backlog) {
      const room = this.data.length - ((at - Atomics.load(this.ctl, TAIL)) >>> 0);
      if (room === 0) break;
      const bytes = this.waiting[this.first];
      const n = Math.min(room, bytes.length - this.waitingAt);
      this.copyIn(at, bytes.subarray(this.waitingAt, this.waitingAt + n));
      at = (at + n) | 0;
      this.waitingAt += n;
      if (this.waitingAt === bytes.length) {
        this.waitingAt = 0;
        if (++this.first === this.waiting.length) this.waiting.length = this.first = 0;
      }
    }
    if (at !== head) this.publish(head, at);
  }

  /**
   * Blocks until every row put is in the ring (the reader drains it), at
   * most `ms`; returns whether they are.
   */
  pushAll(ms: number): boolean {
    const deadline = Date.now() + ms;
    for (this.push(); this.backlog; this.push()) {
      if (Date.now() > deadline) return false;
      const tail = Atomics.load(this.ctl, TAIL);
      this.wake();
      Atomics.wait(this.ctl, TAIL, tail, 5);
    }
    return true;
  }

  /** Moves HEAD from `head` to `at` (what lies between is written) and wakes the reader. */
  private publish(head: number, at: number): void {
    if (at === head) return;
    Atomics.store(this.ctl, HEAD, at);
    this.wake();
  }

  /** Wakes the reader if it sleeps. */
  private wake(): void {
    if (Atomics.compareExchange(this.ctl, ASLEEP, 1, 0) === 1) Atomics.notify(this.ctl, ASLEEP);
  }

  private copyIn(at: number, bytes: Uint8Array): void {
    const from = at & this.mask;
    const first = Math.min(bytes.length, this.data.length - from);
    this.data.set(bytes.subarray(0, first), from);
    if (first < bytes.length) this.data.set(bytes.subarray(first), 0);
  }
}

/** The worker's end: takes what was written, sleeps until a row comes. */
export class RingReader {
  private ctl: Int32Array;
  private data: Uint8Array;
  private mask: number;
  /** What was drained, copied out; its first `kept` bytes are a row not whole yet. */
  private buf = new Uint8Array(1 << 16);
  private kept = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.ctl = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.data = new Uint8Array(buffer, CONTROL_BYTES);
    this.mask = this.data.length - 1;
  }

  /** Every whole row written since the last take, in order. */
  take(): Row[] {
    const tail = Atomics.load(this.ctl, TAIL);
    const head = Atomics.load(this.ctl, HEAD);
    const n = (head - tail) >>> 0;
    if (n === 0) return [];
    const total = this.kept + n;
    if (total > this.buf.length) {
      const bigger = new Uint8Array(Math.max(total, 2 * this.buf.length));
      bigger.set(this.buf.subarray(0, this.kept));
      this.buf = bigger;
    }
    const from = tail & this.mask;
    const first = Math.min(n, this.data.length - from);
    this.buf.set(this.data.subarray(from, from + first), this.kept);
    if (first < n) this.buf.set(this.data.subarray(0, n - first), this.kept + first);
    Atomics.store(this.ctl, TAIL, head);
    Atomics.notify(this.ctl, TAIL); // a writer waiting for room (`pushAll`)
    const end = this.buf.lastIndexOf(NEWLINE, total - 1); // the last whole row's
    if (end < 0) {
      this.kept = total;
      return [];
    }
    const text = decoder.decode(this.buf.subarray(0, end - 1)); // without its ",\n"
    this.buf.copyWithin(0, end + 1, total);
    this.kept = total - end - 1;
    return JSON.parse(`[${text}]`) as Row[];
  }

  /**
   * Calls `wake` once a row is written after this call (at once, in a
   * microtask, if one already was); the reader sleeps until then.
   */
  sleep(wake: () => void): void {
    Atomics.store(this.ctl, ASLEEP, 1);
    if (Atomics.load(this.ctl, HEAD) !== Atomics.load(this.ctl, TAIL)) {
      Atomics.store(this.ctl, ASLEEP, 0);
      queueMicrotask(wake);
      return;
    }
    const r = Atomics.waitAsync(this.ctl, ASLEEP, 1);
    if (r.async) r.value.then(wake);
    else queueMicrotask(wake);
  }
}
