/**
 * The byte pipes behind a process's stdio: a queue that the core fills
 * (stdin) and a line splitter that hands each complete line to the core
 * (stdout, stderr).
 *
 * @module
 */

import type { ByteSink, ByteSource } from "./streams.ts";
import { ReadBuffer } from "./read_buffer.ts";

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

/** Splits written bytes into lines and hands each to `emit`, without the newline. */
export class LineSink implements ByteSink {
  private decoder = new TextDecoder();
  private partial = "";

  /** @param emit receives each complete line */
  constructor(private emit: (line: string) => void) {}

  /** Takes bytes; emits every line they complete. */
  write(bytes: Uint8Array): void {
    const text = this.partial + this.decoder.decode(bytes, { stream: true });
    const lines = text.split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) this.emit(line.endsWith("\r") ? line.slice(0, -1) : line);
  }

  /** Emits a last line that had no newline (at process end). */
  finish(): void {
    const rest = this.partial + this.decoder.decode();
    this.partial = "";
    if (rest !== "") this.emit(rest);
  }
}
