/**
 * Bytes read ahead in the background (from a socket, an HTTP body) for a
 * guest's input stream to take: bounded, with an end and at most one error,
 * which the guest sees after the bytes that came before it.
 *
 * @module
 */

import { Signal } from "./signal.ts";
import type { ByteSource } from "./streams.ts";

/** How many bytes are read ahead before reading pauses. */
export const READ_AHEAD = 64 * 1024;

/** A bounded buffer between a background reader and the guest. */
export class ReadBuffer {
  private chunks: Uint8Array[] = [];
  private size = 0;
  private error: unknown = undefined;
  /** True once no more bytes will come. */
  ended = false;
  /** Notified on every change (bytes, the end, an error). */
  readonly changed = new Signal();

  /** True while the reader should go on: not ended and not full. */
  get wantsMore(): boolean {
    return !this.ended && this.size < READ_AHEAD;
  }

  /** Adds bytes that were read. */
  push(bytes: Uint8Array): void {
    if (bytes.length > 0) {
      this.chunks.push(bytes);
      this.size += bytes.length;
    }
    this.changed.notify();
  }

  /** Marks the end of the stream. */
  end(): void {
    this.ended = true;
    this.changed.notify();
  }

  /** Ends the stream with an error (the first one counts), unless it had already ended. */
  fail(error: unknown): void {
    if (!this.ended) this.error ??= error;
    this.end();
  }

  /** Ends the stream and drops what was buffered (the guest is done with it). */
  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.end();
  }

  /** Up to `max` buffered bytes; `null` at the end; throws the error once the bytes before it are taken. */
  take(max: number): Uint8Array | null {
    if (this.chunks.length === 0) {
      if (this.error !== undefined) {
        const e = this.error;
        this.error = undefined;
        throw e;
      }
      return this.ended ? null : new Uint8Array(0);
    }
    const first = this.chunks[0];
    let out: Uint8Array;
    if (first.length <= max) {
      this.chunks.shift();
      out = first;
    } else {
      this.chunks[0] = first.subarray(max);
      out = first.subarray(0, max);
    }
    this.size -= out.length;
    return out;
  }

  /** Resolves when bytes, the end or an error arrive; `undefined` when `take` has something now. */
  whenReadable(): Promise<void> | undefined {
    if (this.chunks.length > 0 || this.ended) return undefined;
    return this.changed.wait();
  }
}

/**
 * A guest's byte source filled by a loop in the background: it reads chunks
 * with `next` while the buffer wants more, pauses when it is full, and goes
 * on when the guest takes bytes. A failed read ends the stream with
 * `failure(error)`, which the guest gets after the bytes before it.
 */
export abstract class BackgroundReader implements ByteSource {
  /** What was read and not yet taken. */
  protected readonly buffer = new ReadBuffer();
  private pumping = false;

  /** Reads the next chunk; `null` at the end. */
  protected abstract next(): Promise<Uint8Array | null>;

  /** What the guest gets for a read that failed with `error`. */
  protected abstract failure(error: unknown): unknown;

  /** Called each time the loop stops (the buffer is full, or the stream ended). */
  protected paused(): void {}

  /** Runs the loop unless it runs already. */
  protected async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.buffer.wantsMore) {
        const chunk = await this.next();
        if (this.buffer.ended) break;
        if (chunk === null) this.buffer.end();
        else this.buffer.push(chunk);
      }
    } catch (e) {
      this.buffer.fail(this.failure(e));
    } finally {
      this.pumping = false;
      this.paused();
      this.buffer.changed.notify();
    }
  }

  /** Takes up to `max` buffered bytes; `null` at the end; throws a failed read once. */
  read(max: number): Uint8Array | null {
    const out = this.buffer.take(max);
    if (this.buffer.wantsMore) this.pump();
    return out;
  }

  /** Resolves when bytes, the end or an error arrive; `undefined` when `read` has something now. */
  whenReadable(): Promise<void> | undefined {
    return this.buffer.whenReadable();
  }
}
