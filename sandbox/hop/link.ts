/**
 * The seam between the messages of `protocol.ts` and what carries them. The
 * core and a sandbox each hold a {@link MessageLink}: they send messages,
 * receive them (checked), and learn when the link is closed. A link over a
 * byte stream (a pipe pair, a Unix socket) is {@link StreamLink}, with the
 * frames of `frames.ts`; a link over another carrier (NATS, between hosts)
 * implements the same interface, with `encodeFrames`/`decodeFrames` per
 * carrier message.
 *
 * @module
 */

import { encodeFrames, FrameDecoder, FrameError } from "./frames.ts";

/** A two-way carrier of messages: `Out` sent, `In` received. */
export interface MessageLink<Out, In> {
  /**
   * Sends a message. Messages sent in one turn of the event loop go out
   * together (one write); order is kept. Dropped silently once closed.
   */
  send(msg: Out): void;
  /**
   * Starts delivering received messages, each checked, in order, to `on`
   * (called once per link, before or after messages arrive: none is lost).
   */
  listen(on: (msg: In) => void): void;
  /**
   * Resolves once, with why, when the link closed: the peer went away (what
   * it sent before is delivered first), it sent something that failed the
   * check, or `close` was called. No message is delivered after.
   */
  readonly closed: Promise<string>;
  /** Closes the link (what was sent in this turn is written first). */
  close(why?: string): void;
}

/**
 * What a link received, held until `listen` (none is lost), then handed on
 * in order: the receiving half of a {@link MessageLink}.
 */
export class Inbox<In> {
  private queue: In[] | null = [];
  private on: ((msg: In) => void) | null = null;

  /** `MessageLink.listen`: what was held first. */
  listen(on: (msg: In) => void): void {
    this.on = on;
    const queued = this.queue ?? [];
    this.queue = null;
    for (const m of queued) on(m);
  }

  /** One message received (checked). */
  deliver(msg: In): void {
    if (this.on) this.on(msg);
    else this.queue!.push(msg);
  }
}

/** Bytes both ways, under a {@link StreamLink}. */
export interface ByteDuplex {
  /** The next chunk (valid until the next call), or null at the end. */
  read(): Promise<Uint8Array | null>;
  /** Writes all of `bytes`, in order with earlier writes. */
  write(bytes: Uint8Array): Promise<void> | void;
  /** Closes both directions. */
  close(): void;
}

/** How a {@link StreamLink} checks and bounds what it receives. */
export interface StreamLinkOptions<In> {
  /** Turns a received message into an `In`, or throws (`protocol_check.ts`). */
  check: (msg: unknown) => In;
  /** The most bytes of one frame. */
  maxFrame: number;
}

/**
 * Writes of more bytes than this go out in slices, so that a big message
 * shows its progress ({@link StreamLink.lastMoved}) as the peer reads it.
 */
const WRITE_SLICE = 256 * 1024;

/** A message link over a byte stream, in the frames of `frames.ts`. */
export class StreamLink<Out extends object, In> implements MessageLink<Out, In> {
  readonly closed: Promise<string>;
  private done: ((why: string) => void) | null = null;
  private pending: Out[] = [];
  private inbox = new Inbox<In>();
  private chain: Promise<void> = Promise.resolve();
  /** A write failed: sends are dropped, while what the peer sent before is still read. */
  private broken = false;
  /**
   * When bytes last moved on the link (`Date.now()`): a chunk read, or a
   * slice of a big write taken by the peer. A peer busy with a message of
   * megabytes on a loaded machine answers nothing else for seconds, yet is
   * not stalled.
   */
  lastMoved = Date.now();
  private moved = () => void (this.lastMoved = Date.now());

  constructor(private io: ByteDuplex, private opts: StreamLinkOptions<In>) {
    this.closed = new Promise((r) => (this.done = r));
    this.readLoop();
  }

  send(msg: Out): void {
    if (!this.done || this.broken) return;
    if (this.pending.push(msg) === 1) queueMicrotask(() => this.flush());
  }

  listen(on: (msg: In) => void): void {
    this.inbox.listen(on);
  }

  close(why = "it was closed"): void {
    this.flush();
    this.end(why);
    // After the last write.
    this.chain.finally(() => {
      try {
        this.io.close();
      } catch { /* already closed */ }
    });
  }

  private end(why: string): void {
    const done = this.done;
    this.done = null;
    done?.(why);
  }

  private flush(): void {
    if (this.pending.length === 0 || !this.done || this.broken) return;
    const bytes = encodeFrames(this.pending);
    this.pending = [];
    // A failed write ends nothing by itself: the link closes when the read side ends.
    const broken = () => void (this.broken = true);
    try {
      if (bytes.length <= WRITE_SLICE) {
        const w = this.io.write(bytes);
        if (w) this.chain = this.chain.then(() => w).catch(broken);
        return;
      }
      for (let at = 0; at < bytes.length; at += WRITE_SLICE) {
        const w = this.io.write(bytes.subarray(at, at + WRITE_SLICE));
        if (!w) continue;
        w.then(this.moved, () => {});
        this.chain = this.chain.then(() => w).catch(broken);
      }
    } catch {
      broken();
    }
  }

  private async readLoop(): Promise<void> {
    const decoder = new FrameDecoder(this.opts.check, (m: In) => {
      if (this.done) this.inbox.deliver(m);
    }, this.opts.maxFrame);
    try {
      for (let chunk = await this.io.read(); chunk && this.done; chunk = await this.io.read()) {
        this.lastMoved = Date.now();
        decoder.push(chunk);
      }
      this.end(decoder.pending ? "its peer ended inside a message" : "its peer closed it");
    } catch (e) {
      this.end(
        e instanceof FrameError
          ? `its peer sent ${e.message}`
          : `it failed: ${e instanceof Error ? e.message : e}`,
      );
    }
  }
}

/** Something read directly, like a `Deno.Conn` or `Deno.stdin`. */
export interface RawReader {
  read(p: Uint8Array): Promise<number | null>;
  close?(): void;
}

/** Something written directly, like a `Deno.Conn` or `Deno.stdout`. */
export interface RawWriter {
  write?(p: Uint8Array): Promise<number>;
  /** A blocking write (a sandbox's stdout: simplest, and its order is the order of sends). */
  writeSync?(p: Uint8Array): number;
  close?(): void;
}

/** A duplex over raw reads and writes, without web streams (one buffer, reused). */
export function rawDuplex(
  reader: RawReader,
  writer: RawWriter = reader as RawWriter,
  bufferBytes = 256 * 1024,
): ByteDuplex {
  const buf = new Uint8Array(bufferBytes);
  let inFlight: Promise<void> | null = null;
  return {
    async read() {
      const n = await reader.read(buf);
      return n === null ? null : buf.subarray(0, n);
    },
    write(bytes) {
      if (writer.writeSync) {
        for (let n = 0; n < bytes.length;) n += writer.writeSync(bytes.subarray(n));
        return;
      }
      // Each write whole, after the one before.
      const run = async () => {
        for (let n = 0; n < bytes.length;) n += await writer.write!(bytes.subarray(n));
      };
      const p: Promise<void> = inFlight ? inFlight.then(run) : run();
      inFlight = p;
      const clear = () => {
        if (inFlight === p) inFlight = null;
      };
      p.then(clear, clear);
      return p;
    },
    close() {
      reader.close?.();
      if (writer !== (reader as unknown)) writer.close?.();
    },
  };
}

/** A duplex over web streams (a child process's stdout and stdin). */
export function streamDuplex(
  readable: ReadableStream<Uint8Array>,
  writable: WritableStream<Uint8Array>,
): ByteDuplex {
  const reader = readable.getReader();
  const writer = writable.getWriter();
  return {
    async read() {
      const r = await reader.read();
      return r.done ? null : r.value;
    },
    write: (bytes) => writer.write(bytes),
    close() {
      reader.cancel().catch(() => {});
      writer.close().catch(() => {});
    },
  };
}

/** A duplex that becomes `later` once it is there (a socket still being accepted). */
export function laterDuplex(later: Promise<ByteDuplex>): ByteDuplex {
  let io: ByteDuplex | null = null;
  later.then((d) => (io = d), () => {});
  return {
    read: async () => (io ?? await later).read(),
    write: (bytes) => io ? io.write(bytes) : later.then((d) => d.write(bytes)),
    close: () => void later.then((d) => d.close(), () => {}),
  };
}
