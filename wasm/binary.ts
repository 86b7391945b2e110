/**
 * Reading and writing the WebAssembly binary format's primitives: bytes and
 * LEB128 integers, with a reader that says where it failed.
 *
 * @module
 */

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A malformed or unsupported module; the message says what and where. */
export class WasmFormatError extends Error {}

/** Reads a byte array front to back. */
export class Reader {
  /** The next byte to read. */
  pos: number;

  /**
   * @param bytes what to read
   * @param start where to begin
   * @param end where to stop (default the end of `bytes`)
   */
  constructor(readonly bytes: Uint8Array, start = 0, readonly end = bytes.length) {
    this.pos = start;
  }

  /** True when everything has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** One byte. */
  u8(): number {
    if (this.pos >= this.end) throw new WasmFormatError(`unexpected end at byte ${this.pos}`);
    return this.bytes[this.pos++];
  }

  /** An unsigned LEB128 of up to 32 bits. */
  u32(): number {
    return this.leb().value;
  }

  /** A signed LEB128 (s32, s33 or s64), as a number (exact up to 2^53). */
  signed(): number {
    const { value, shift, last } = this.leb();
    return last & 0x40 ? value - 2 ** shift : value;
  }

  /** The bits of a LEB128 as an unsigned number, how many there were, and the last byte. */
  private leb(): { value: number; shift: number; last: number } {
    let value = 0, shift = 0, last: number;
    do {
      last = this.u8();
      value += (last & 0x7f) * 2 ** shift;
      shift += 7;
    } while (last & 0x80);
    return { value, shift, last };
  }

  /** Skips a LEB128 of any size. */
  skipLeb(): void {
    while (this.u8() & 0x80) { /* continuation bit */ }
  }

  /** The next `n` bytes, without copying. */
  take(n: number): Uint8Array {
    if (this.pos + n > this.end) throw new WasmFormatError(`unexpected end at byte ${this.pos}`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A length-prefixed UTF-8 name. */
  name(): string {
    return decoder.decode(this.take(this.u32()));
  }
}

/** Builds a byte array with appends. */
export class Writer {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  /** How many bytes have been written. */
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  /** One byte. */
  u8(b: number): this {
    this.room(1);
    this.buf[this.length++] = b;
    return this;
  }

  /** An unsigned LEB128. */
  u32(n: number): this {
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      this.u8(b);
    } while (n > 0);
    return this;
  }

  /** A signed LEB128. */
  s32(n: number): this {
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) return this.u8(b);
      this.u8(b | 0x80);
    }
  }

  /** Raw bytes. */
  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** A length-prefixed UTF-8 name. */
  name(s: string): this {
    const b = encoder.encode(s);
    return this.u32(b.length).bytes(b);
  }

  /** The bytes written so far (a view; copy it to keep it past later writes). */
  view(): Uint8Array<ArrayBuffer> {
    return this.buf.subarray(0, this.length);
  }
}
