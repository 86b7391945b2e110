/**
 * The journal's rows from the core's thread to the writer's worker through
 * shared memory: a ring of bytes (each row as a length and its JSON text)
 * that the core appends to and the worker drains on its own timer, so a
 * hand-off costs the core no `postMessage` and the worker no message event.
 * The worker, finding nothing to drain, sleeps on a flag the core clears
 * (and wakes it with `Atomics.notify`) at the next row: one wake-up per burst
 * of rows, none while rows keep coming. Bytes that do not fit wait on the
 * core's side, in order, and go in as the worker makes room; a row longer
 * than the ring goes in pieces (the reader joins them).
 *
 * @module
 */

import type { Row } from "./journal_writer.ts";

/** Control words (Int32) at the start of the buffer. */
const HEAD = 0; // bytes written, mod 2^32
const TAIL = 1; // bytes read, mod 2^32
const ASLEEP = 2; // 1 while the reader waits for a row
const CONTROL_BYTES = 16;

/** The ring's size by default (bytes; a power of two): ~10,000 short rows. */
export const RING_BYTES = 1 << 21;

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
  /** Encoded rows (length and text) not yet in the ring, oldest first. */
  private waiting: Uint8Array[] = [];
  /** How much of `waiting[0]` is already in the ring. */
  private waitingAt = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.ctl = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.data = new Uint8Array(buffer, CONTROL_BYTES);
    this.mask = this.data.length - 1;
  }

  /** Appends a row (to the waiting bytes while the ring is full); wakes a sleeping reader. */
  put(row: Row): void {
    const text = encoder.encode(JSON.stringify(row));
    const record = new Uint8Array(4 + text.length);
    new DataView(record.buffer).setUint32(0, text.length, true);
    record.set(text, 4);
    this.waiting.push(record);
    this.push();
  }

  /** True while bytes wait for room in the ring. */
  get backlog(): boolean {
    return this.waiting.length > 0;
  }

  /** Moves waiting bytes into the ring as far as they fit; wakes the reader if it sleeps. */
  push(): void {
    const head = Atomics.load(this.ctl, HEAD);
    let at = head;
    const free = () => this.data.length - ((at - Atomics.load(this.ctl, TAIL)) >>> 0);
    while (this.waiting.length > 0) {
      const room = free();
      if (room === 0) break;
      const record = this.waiting[0];
      const n = Math.min(room, record.length - this.waitingAt);
      this.copyIn(at, record.subarray(this.waitingAt, this.waitingAt + n));
      at = (at + n) | 0;
      this.waitingAt += n;
      if (this.waitingAt === record.length) {
        this.waiting.shift();
        this.waitingAt = 0;
      }
    }
    if (at === head) return;
    Atomics.store(this.ctl, HEAD, at);
    if (Atomics.compareExchange(this.ctl, ASLEEP, 1, 0) === 1) Atomics.notify(this.ctl, ASLEEP);
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
      if (Atomics.compareExchange(this.ctl, ASLEEP, 1, 0) === 1) Atomics.notify(this.ctl, ASLEEP);
      Atomics.wait(this.ctl, TAIL, tail, 5);
    }
    return true;
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
  /** Bytes of a row not whole yet (a row longer than what one take found). */
  private part = new Uint8Array(0);

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
    const bytes = new Uint8Array(this.part.length + n);
    bytes.set(this.part);
    const from = tail & this.mask;
    const first = Math.min(n, this.data.length - from);
    bytes.set(this.data.subarray(from, from + first), this.part.length);
    if (first < n) bytes.set(this.data.subarray(0, n - first), this.part.length + first);
    Atomics.store(this.ctl, TAIL, head);
    Atomics.notify(this.ctl, TAIL); // a writer waiting for room (`pushAll`)
    const rows: Row[] = [];
    const view = new DataView(bytes.buffer);
    let at = 0;
    while (bytes.length - at >= 4) {
      const len = view.getUint32(at, true);
      if (bytes.length - at - 4 < len) break;
      rows.push(JSON.parse(decoder.decode(bytes.subarray(at + 4, at + 4 + len))) as Row);
      at += 4 + len;
    }
    this.part = bytes.slice(at);
    return rows;
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
