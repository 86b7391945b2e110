/**
 * `wasi:io/streams` and `wasi:io/error`: input and output streams over small
 * byte sources and sinks, so that stdin, stdout, files and sockets share one
 * implementation of the stream contract (closed vs. failed, blocking variants,
 * subscribe).
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import { Pollable } from "./poll.ts";

/** `wasi:io/error.error`: the detail of a failed stream operation. */
export class IoError {
  /** @param message what failed; `code` is the filesystem error code, when there is one */
  constructor(readonly message: string, readonly code?: string) {}

  /** The text a guest sees when it prints the error. */
  toDebugString(): string {
    return this.message;
  }
}

/** Where an input stream takes its bytes from. */
export interface ByteSource {
  /** Up to `max` bytes available now (may be empty); `null` at the end of the stream. */
  read(max: number): Uint8Array | null;
  /** Resolves when `read` may return bytes or the end; `undefined` when it would now. */
  whenReadable(): Promise<void> | undefined;
  /** Called when the guest drops the stream. */
  close?(): void;
}

/** Where an output stream puts its bytes. */
export interface ByteSink {
  /** Writes all of `bytes`; throws an `IoError` on failure. */
  write(bytes: Uint8Array): void;
  /** Resolves when written bytes have reached their destination. */
  flush?(): Promise<void> | void;
  /** True while written bytes are still on their way (a socket's queue). */
  readonly busy?: boolean;
  /**
   * True while bytes of earlier writes wait in the sink itself (a stdio
   * sink's lines past a turn's batch): `check-write` answers 0 and a write
   * traps, so a guest cannot pile up host memory by writing on.
   */
  readonly backlog?: boolean;
  /** Called when the guest drops the stream. */
  close?(): void;
}

const CLOSED = { tag: "closed" };

/** A stream failure for the guest; a host fault is thrown on as it is (the process traps). */
function failed(e: unknown): { tag: "last-operation-failed"; val: IoError } {
  if (e instanceof HostError) throw e;
  return { tag: "last-operation-failed", val: e instanceof IoError ? e : new IoError(String(e)) };
}

/** `wasi:io/streams.input-stream`. */
export class InputStream {
  /** Wraps a byte source. */
  constructor(private source: ByteSource) {}

  /** Reads what is available now, possibly nothing. */
  read(len: bigint): Uint8Array {
    let bytes: Uint8Array | null;
    try {
      bytes = this.source.read(Math.min(Number(len), MAX_READ));
    } catch (e) {
      throw failed(e);
    }
    if (bytes === null) throw CLOSED;
    return bytes;
  }

  /** Waits until at least one byte or the end is there, then reads. */
  async blockingRead(len: bigint): Promise<Uint8Array> {
    for (;;) {
      const wait = this.source.whenReadable();
      if (wait === undefined) {
        const bytes = this.read(len);
        if (bytes.length > 0 || len === 0n) return bytes;
        // A source that said "ready" but had nothing: wait for more.
        await new Promise((r) => setTimeout(r, 0));
      } else {
        await wait;
      }
    }
  }

  /** Like `read`, but drops the bytes and returns their count. */
  skip(len: bigint): bigint {
    return BigInt(this.read(len).length);
  }

  /** Like `blockingRead`, but drops the bytes and returns their count. */
  async blockingSkip(len: bigint): Promise<bigint> {
    return BigInt((await this.blockingRead(len)).length);
  }

  /** A pollable that is ready when bytes or the end can be read. */
  subscribe(): Pollable {
    return new Pollable(
      () => this.source.whenReadable() === undefined,
      () => this.source.whenReadable() ?? Promise.resolve(),
    );
  }

  /** Called by the glue when the guest drops the stream. */
  [Symbol.dispose](): void {
    this.source.close?.();
  }
}

/**
 * How many bytes a guest may write in one go (`check-write`'s answer): a
 * write past it traps, as wasmtime traps a `blocking-write-and-flush` past
 * its 4096 bytes, so one call's work (a copy, a stdio line split) is bounded.
 */
export const WRITE_BUDGET = 64 * 1024;

/** The most bytes one read takes (a shorter read is allowed). */
export const MAX_READ = 2 ** 20;

/** Traps (a host fault) for a write of `len` bytes past {@link WRITE_BUDGET}. */
function withinBudget(len: number | bigint): number {
  if (len > WRITE_BUDGET) {
    throw new Error(
      `a stream write of ${len} bytes passed the ${WRITE_BUDGET} that check-write allows`,
    );
  }
  return Number(len);
}

/**
 * `wasi:io/streams.output-stream`. A `flush` started by the guest is in
 * progress until the sink has written everything: meanwhile `check-write`
 * answers 0 and the stream's pollable is not ready, as WASI asks, so a guest
 * that flushes and polls knows when its bytes are out.
 */
export class OutputStream {
  private closed = false;
  private flushing: Promise<void> | null = null;
  private failure: unknown = null;

  /** Wraps a byte sink. */
  constructor(private sink: ByteSink) {}

  private check(): void {
    if (this.failure) {
      const e = this.failure;
      this.failure = null;
      this.closed = true;
      throw failed(e);
    }
    if (this.closed) throw CLOSED;
  }

  /** How many bytes may be written now: none while a flush is in progress or the sink has a backlog. */
  checkWrite(): bigint {
    this.check();
    return this.flushing || this.sink.backlog ? 0n : BigInt(WRITE_BUDGET);
  }

  /** Writes bytes (at most what `checkWrite` allowed: past it, a trap). */
  write(contents: Uint8Array): void {
    withinBudget(contents.length);
    if (this.sink.backlog) {
      throw new Error(
        "a stream write while check-write allowed none (the last write's lines wait)",
      );
    }
    this.check();
    try {
      this.sink.write(contents);
    } catch (e) {
      this.closed = true;
      throw failed(e);
    }
  }

  /** Writes and waits until the bytes are out. */
  async blockingWriteAndFlush(contents: Uint8Array): Promise<void> {
    while (this.sink.backlog) await this.sink.flush?.();
    this.write(contents);
    await this.blockingFlush();
  }

  /** Starts a flush; `check-write` and the pollable tell when it is done. */
  flush(): void {
    this.check();
    if (this.flushing || !this.sink.flush) return;
    const done = Promise.resolve(this.sink.flush()).catch((e) => void (this.failure = e));
    if (this.sink.busy === false) return void done; // nothing in flight: done at once
    this.flushing = done.finally(() => (this.flushing = null));
  }

  /** Waits until every written byte is out. */
  async blockingFlush(): Promise<void> {
    this.check();
    try {
      await this.flushing;
      await this.sink.flush?.();
    } catch (e) {
      this.closed = true;
      throw failed(e);
    }
    this.check();
  }

  /** Writes `len` zero bytes. */
  writeZeroes(len: bigint): void {
    this.write(new Uint8Array(withinBudget(len)));
  }

  /** Writes `len` zero bytes and flushes. */
  async blockingWriteZeroesAndFlush(len: bigint): Promise<void> {
    await this.blockingWriteAndFlush(new Uint8Array(withinBudget(len)));
  }

  /** Moves up to `len` bytes that are available now from `src` into this stream. */
  splice(src: InputStream, len: bigint): bigint {
    const bytes = src.read(len < WRITE_BUDGET ? len : BigInt(WRITE_BUDGET));
    this.write(bytes);
    return BigInt(bytes.length);
  }

  /** Moves bytes from `src` once at least one is available. */
  async blockingSplice(src: InputStream, len: bigint): Promise<bigint> {
    const bytes = await src.blockingRead(len < WRITE_BUDGET ? len : BigInt(WRITE_BUDGET));
    await this.blockingWriteAndFlush(bytes);
    return BigInt(bytes.length);
  }

  /** A pollable that is ready when the stream can take bytes: when no flush is in progress. */
  subscribe(): Pollable {
    return new Pollable(
      () => this.flushing === null && !this.sink.backlog,
      () => this.flushing ?? Promise.resolve(this.sink.backlog ? this.sink.flush?.() : undefined),
    );
  }

  /** Called by the glue when the guest drops the stream. */
  [Symbol.dispose](): void {
    this.sink.close?.();
  }
}

/** The `wasi:io/streams` interface. */
export const streamsInterface = { InputStream, OutputStream };

/** The `wasi:io/error` interface. */
export const errorInterface = { Error: IoError };
