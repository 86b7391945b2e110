/**
 * The guest's linear memory as the binding reads and writes it: fresh views
 * on every use (a `memory.grow` detaches the old buffer), little-endian
 * numbers, UTF-8 strings and iovec lists.
 *
 * @module
 */

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** One process's memory, once its instance exists. */
export class GuestMemory {
  /** Set after instantiation (the memory is imported, so known before). */
  memory: WebAssembly.Memory | null = null;

  /** A view of the whole memory now. */
  view(): DataView {
    return new DataView(this.memory!.buffer);
  }

  /** The bytes now. */
  bytes(): Uint8Array {
    return new Uint8Array(this.memory!.buffer);
  }

  /** The UTF-8 string at `ptr`, `len` bytes long. */
  string(ptr: number, len: number): string {
    return decoder.decode(this.bytes().subarray(ptr, ptr + len));
  }

  /** A copy of the bytes gathered from the iovec list at `iovs` (`count` entries). */
  gather(iovs: number, count: number): Uint8Array {
    const v = this.view();
    const mem = this.bytes();
    if (count === 1) {
      const ptr = v.getUint32(iovs, true);
      return mem.slice(ptr, ptr + v.getUint32(iovs + 4, true));
    }
    let total = 0;
    for (let i = 0; i < count; i++) total += v.getUint32(iovs + i * 8 + 4, true);
    const out = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const ptr = v.getUint32(iovs + i * 8, true);
      const len = v.getUint32(iovs + i * 8 + 4, true);
      out.set(mem.subarray(ptr, ptr + len), at);
      at += len;
    }
    return out;
  }

  /** The total length of the iovec list at `iovs`. */
  iovLength(iovs: number, count: number): number {
    const v = this.view();
    let total = 0;
    for (let i = 0; i < count; i++) total += v.getUint32(iovs + i * 8 + 4, true);
    return total;
  }

  /** Spreads `data` over the iovec list at `iovs`; returns the count placed. */
  scatter(iovs: number, count: number, data: Uint8Array): number {
    const v = this.view();
    const mem = this.bytes();
    let at = 0;
    for (let i = 0; i < count && at < data.length; i++) {
      const ptr = v.getUint32(iovs + i * 8, true);
      const len = Math.min(v.getUint32(iovs + i * 8 + 4, true), data.length - at);
      mem.set(data.subarray(at, at + len), ptr);
      at += len;
    }
    return at;
  }

  /** Writes a u32 at `ptr`. */
  u32(ptr: number, value: number): void {
    this.view().setUint32(ptr, value, true);
  }

  /** Writes a u64 at `ptr`. */
  u64(ptr: number, value: bigint | number): void {
    this.view().setBigUint64(ptr, BigInt(value), true);
  }

  /**
   * Writes a list of strings as C strings at `buf` and their addresses at
   * `ptrs` (`args_get`, `environ_get`).
   */
  stringList(list: Uint8Array[], ptrs: number, buf: number): void {
    const v = this.view();
    const mem = this.bytes();
    let at = buf;
    list.forEach((s, i) => {
      v.setUint32(ptrs + i * 4, at, true);
      mem.set(s, at);
      mem[at + s.length] = 0;
      at += s.length + 1;
    });
  }
}

/** Strings as the C strings `args_get`/`environ_get` hand out (without the NUL). */
export function encodeAll(list: string[]): Uint8Array[] {
  return list.map((s) => encoder.encode(s));
}

/** The UTF-8 bytes of `s`. */
export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}
