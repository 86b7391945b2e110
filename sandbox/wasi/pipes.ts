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
import { nextTurn } from "../guest/event_turns.ts";
import type { OutputWindow } from "../guest/output_window.ts";

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
 * The most lines a sink hands to the core in one go: the lines of a larger
 * write wait in the sink and go a batch a turn of the event loop (the
 * sink is `busy` meanwhile), so one write of millions of short lines does
 * not hold the thread (PROTOCOL 4.9).
 */
export const LINES_PER_TURN = 256;

/**
 * Splits written bytes into lines of at most `max` bytes and hands each to
 * `emit`, at most {@link LINES_PER_TURN} a turn. With a window
 * (`output_window.ts`), it is also `busy` while the window is full, and
 * `flush` waits until the lines are out and the window has room.
 */
export class LineSink implements ByteSink {
  private splitter: LineSplitter;
  /** Lines split but not yet handed on (past a turn's batch). */
  private queue: string[] = [];
  private sent = 0;
  private draining: Promise<void> | null = null;

  /**
   * @param emit receives each complete line, without the newline
   * @param max the longest line, in bytes
   * @param tooLong hears of the first line longer than `max` (which is dropped)
   * @param inFlight the process's output window (in flight to the core), if bounded
   */
  constructor(
    private emit: (line: string) => void,
    max: number,
    tooLong: (seen: number) => void,
    private inFlight?: OutputWindow,
  ) {
    this.splitter = new LineSplitter(max, { line: (line) => this.line(line), tooLong });
  }

  private line(line: string): void {
    if (this.queue.length === 0 && this.sent < LINES_PER_TURN) this.send(line);
    else this.queue.push(line);
  }

  private send(line: string): void {
    this.sent++;
    this.inFlight?.sent(line);
    this.emit(line);
  }

  /** Takes bytes; emits the lines they complete (the first batch now, the rest a batch a turn). */
  write(bytes: Uint8Array): void {
    this.splitter.push(bytes);
    this.sent = 0;
    if (this.queue.length > 0) this.drain();
  }

  /** Hands the queued lines on, a batch a turn, until none is left. */
  private drain(): Promise<void> {
    return this.draining ??= (async () => {
      while (this.queue.length > 0) {
        // A turn of the sandbox's line (`event_turns.ts`): I/O and the other guests go in between.
        await new Promise<void>((r) => nextTurn(r));
        const batch = this.queue.splice(0, LINES_PER_TURN);
        for (const line of batch) this.send(line);
        this.sent = 0;
      }
      this.draining = null;
    })();
  }

  /** True while lines of earlier writes wait in the sink (the stream's `check-write` is 0). */
  get backlog(): boolean {
    return this.queue.length > 0;
  }

  /** True while lines wait in the sink or the window is full: a write should wait for {@link flush}. */
  get busy(): boolean {
    return this.queue.length > 0 || (this.inFlight?.full ?? false);
  }

  /** Resolves once the queued lines are out and the window has room (at once without either). */
  flush(): Promise<void> | void {
    if (this.queue.length > 0) return this.drain().then(() => this.inFlight?.whenOpen());
    return this.inFlight?.whenOpen();
  }

  /** Emits the queued lines and a last line that had no newline (at process end). */
  finish(): void {
    for (const line of this.queue.splice(0)) this.send(line);
    this.sent = -Infinity; // the last line goes now too
    this.splitter.end();
  }
}
