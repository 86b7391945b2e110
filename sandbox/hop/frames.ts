/**
 * How the messages of `protocol.ts` travel as bytes, whatever carries them
 * (a pipe, a Unix socket, a NATS message): one frame per message, several
 * frames per write. A frame is
 *
 *     u32 header bytes | u32 text bytes + 1 (0: no text) | header | text
 *
 * (little-endian): the header is the message as JSON without its text
 * field, the text is that field's UTF-8, raw. The text field of a message
 * (`TEXT_FIELD`) is the one that holds a line of another channel (a
 * request, a stdin message, a stdout or stderr line), so no line travels
 * as JSON inside JSON: no escaping on one side and unescaping on the other.
 *
 * The receiver checks each message (`checkToSandbox`, `checkFromSandbox`
 * in `protocol_check.ts`): a frame too long, a header that is not JSON or
 * a message of the wrong shape throws {@link FrameError}.
 *
 * @module
 */

import { parseExact } from "../../rpc/exact_json.ts";

/** The field of each op that travels raw after the header. */
const TEXT_FIELD: Record<string, string> = {
  run: "request",
  in: "line",
  out: "line",
  err: "line",
};

/** Bytes of a frame's two lengths. */
const PREFIX = 8;

/** What a receiver found wrong in the bytes it was sent. */
export class FrameError extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes messages into one buffer of frames (what one write sends). */
export function encodeFrames(msgs: readonly object[]): Uint8Array {
  const parts: { header: string; text: string | undefined }[] = [];
  let max = 0;
  for (const msg of msgs) {
    const field = TEXT_FIELD[(msg as { op: string }).op];
    let header: string;
    let text: string | undefined;
    if (field !== undefined && field in msg) {
      const { [field]: t, ...rest } = msg as Record<string, unknown>;
      text = typeof t === "string" ? t : undefined;
      header = JSON.stringify(rest);
    } else header = JSON.stringify(msg);
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    max += PREFIX + 3 * header.length + (text === undefined ? 0 : 3 * text.length);
    parts.push({ header, text });
  }
  const out = new Uint8Array(max);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const { header, text } of parts) {
    const h = encoder.encodeInto(header, out.subarray(at + PREFIX)).written;
    const t = text === undefined ? 0 : encoder.encodeInto(text, out.subarray(at + PREFIX + h))
      .written;
    view.setUint32(at, h, true);
    view.setUint32(at + 4, text === undefined ? 0 : t + 1, true);
    at += PREFIX + h + t;
  }
  return out.subarray(0, at);
}

/**
 * Reads frames from chunks of bytes as they arrive and hands each message,
 * checked, to `on`. Bounded: a frame longer than `maxFrame` bytes throws
 * before it is buffered.
 */
export class FrameDecoder<T> {
  private buf = new Uint8Array(0);
  private len = 0;

  /**
   * @param check turns what arrived into a message, or throws (a `FrameError`)
   * @param on receives each message, in order
   * @param maxFrame the most bytes of one frame
   */
  constructor(
    private check: (msg: unknown) => T,
    private on: (msg: T) => void,
    private maxFrame: number,
  ) {}

  /** True while part of a frame waits for the rest. */
  get pending(): boolean {
    return this.len > 0;
  }

  /** Takes a chunk (copied when part of a frame must wait for the rest). */
  push(chunk: Uint8Array): void {
    let data = chunk;
    if (this.len > 0) {
      this.append(chunk);
      data = this.buf.subarray(0, this.len);
    }
    const used = this.frames(data);
    if (this.len > 0) {
      // Keep the tail in place: shift it to the front.
      this.buf.copyWithin(0, used, this.len);
      this.len -= used;
    } else if (used < data.length) {
      this.append(data.subarray(used));
    }
  }

  /** Decodes the whole frames at the start of `data`; returns the bytes they took. */
  private frames(data: Uint8Array): number {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let at = 0;
    while (data.length - at >= PREFIX) {
      const h = view.getUint32(at, true);
      const t = view.getUint32(at + 4, true);
      const size = PREFIX + h + Math.max(0, t - 1);
      if (size > this.maxFrame) {
        throw new FrameError(`a frame of ${size} bytes (limit ${this.maxFrame})`);
      }
      if (data.length - at < size) break;
      const start = at + PREFIX;
      let msg: unknown;
      try {
        msg = parseExact(decoder.decode(data.subarray(start, start + h)));
      } catch {
        throw new FrameError("a frame whose header is not JSON");
      }
      if (t > 0) {
        const field = TEXT_FIELD[(msg as { op?: string })?.op ?? ""];
        if (field === undefined) throw new FrameError("text on a message that has none");
        (msg as Record<string, unknown>)[field] = decoder.decode(
          data.subarray(start + h, start + h + t - 1),
        );
      }
      at += size;
      this.on(this.check(msg));
    }
    return at;
  }

  private append(bytes: Uint8Array): void {
    if (this.len + bytes.length > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.len + bytes.length, this.buf.length * 2, 4096));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }
}

/** Decodes one buffer of whole frames (a transport that carries writes whole, like NATS). */
export function decodeFrames<T>(
  bytes: Uint8Array,
  check: (msg: unknown) => T,
  maxFrame: number,
): T[] {
  const out: T[] = [];
  const d = new FrameDecoder(check, (m) => out.push(m), maxFrame);
  d.push(bytes);
  if (d.pending) throw new FrameError("a buffer that ends inside a frame");
  return out;
}
