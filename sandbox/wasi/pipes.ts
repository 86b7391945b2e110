/**
 * The byte pipes behind a process's stdio: a queue that the core fills
 * (stdin) and a line splitter that hands each complete line to the core
 * (stdout, stderr).
 *
 * @module
 */

import type { ByteSink, ByteSource } from "./streams.ts";
import { ReadBuffer } from "./read_buffer.ts";
import { LineSplitter } from "../../rpc/line_splitter.ts";
import type { OutputWindow } from "../output_window.ts";

/** A byte queue with an end: the core pushes, the guest reads. */
export class ByteQueue implements ByteSource {
  private buffer = new ReadBuffer();

  /** Appends bytes for the guest (nothing after the end). */
  push(bytes: Uint8Array): void {
    if (!this.buffer.ended) this.buffer.push(bytes);
  }

  /** Marks the end of the stream (EOF: "stop now"). */
  end(): void {
    this.buffer.end();
  }

  /** Takes up to `max` queued bytes; null when the queue is empty and ended. */
  read(max: number): Uint8Array | null {
    return this.buffer.take(max);
  }

  /** Resolves when bytes or the end arrive. */
  whenReadable(): Promise<void> | undefined {
    return this.buffer.whenReadable();
  }
}

/**
 * Splits written bytes into lines of at most `max` bytes and hands each to
 * `emit`. With a window (`output_window.ts`), it is `busy` while the
 * window is full, and `flush` waits until it has room.
 */
export class LineSink implements ByteSink {
  private splitter: LineSplitter;

  /**
   * @param emit receives each complete line, without the newline
   * @param max the longest line, in bytes
   * @param tooLong hears of the first line longer than `max` (which is dropped)
   * @param inFlight the process's output window (in flight to the core), if bounded
   */
  constructor(
    emit: (line: string) => void,
    max: number,
    tooLong: (seen: number) => void,
    private inFlight?: OutputWindow,
  ) {
    this.splitter = new LineSplitter(max, {
      line: inFlight ? (line) => (inFlight.sent(line), emit(line)) : emit,
      tooLong,
    });
  }

  /** Takes bytes; emits every line they complete. */
  write(bytes: Uint8Array): void {
    this.splitter.push(bytes);
  }

  /** True while the window is full: a write should wait for {@link flush}. */
  get busy(): boolean {
    return this.inFlight?.full ?? false;
  }

  /** Resolves once the window has room (at once without one). */
  flush(): Promise<void> | void {
    return this.inFlight?.whenOpen();
  }

  /** Emits a last line that had no newline (at process end). */
  finish(): void {
    this.splitter.end();
  }
}
