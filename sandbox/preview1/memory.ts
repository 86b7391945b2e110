/**
 * The guest's linear memory as the binding reads and writes it: checked
 * ranges (a pointer or a range outside memory, or misaligned for its type,
 * traps, as in wasmtime: witx-docs.md's "Pointers", wasmtime's
 * `From<GuestError> for types::Error` in `crates/wasi/src/preview1.rs`),
 * little-endian numbers, UTF-8 strings (invalid UTF-8 is EILSEQ, as there)
 * and iovec lists read at most {@link MAX_IOVS} entries and a caller's
 * bound of bytes at a time (short transfers).
 *
 * A process's memory goes back to the sandbox's pool when it ends, while
 * some of its calls may still be pending (a `poll_oneoff` timer, a file
 * read): {@link GuestMemory.fence} is called first, and from then on every
 * access through this object throws {@link MemoryFenced}, so a call that
 * settles late writes nothing into the next owner's memory (PROTOCOL 4.9).
 *
 * @module
 */

import { ERRNO, Errno } from "./errno.ts";
import { LAYOUT } from "./layout.ts";
import { MAX_PATH } from "../wasi/filesystem.ts";

export { MAX_PATH };

/** An iovec's size, and where its length lies. */
const IOV = LAYOUT.iovec.size;
const IOV_LEN = LAYOUT.iovec.fields.buf_len;

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/**
 * The most iovecs one read or write looks at (`IOV_MAX` of Linux and
 * wasi-libc): past them the transfer is short, as preview 1 allows.
 */
export const MAX_IOVS = 1024;

/** A guest pointer out of its memory, or misaligned: the guest traps (as in wasmtime). */
export class GuestFault extends WebAssembly.RuntimeError {}

/** Thrown by any access after the process ended (its memory may be another's now). */
export class MemoryFenced extends Error {
  constructor() {
    super("the process has ended: its memory is no longer its own");
  }
}

/** One process's memory, once its instance exists. */
export class GuestMemory {
  private mem: WebAssembly.Memory | null = null;
  private dv: DataView | null = null;
  private u8: Uint8Array | null = null;
  private fenced = false;
  private onFence: (() => void)[] = [];

  /** Set after instantiation (the memory is imported, so known before). */
  set memory(m: WebAssembly.Memory | null) {
    if (this.fenced) throw new MemoryFenced();
    this.mem = m;
  }

  /** The memory now; throws {@link MemoryFenced} once the process has ended. */
  get memory(): WebAssembly.Memory | null {
    if (this.fenced) throw new MemoryFenced();
    return this.mem;
  }

  /**
   * The process has ended: nothing reads or writes its memory through this
   * object any more, and whatever waits on {@link whenFenced} wakes.
   */
  fence(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.mem = this.dv = this.u8 = null;
    for (const f of this.onFence.splice(0)) f();
  }

  /** True once {@link fence} was called. */
  get ended(): boolean {
    return this.fenced;
  }

  /** Resolves when the process ends (a pending wait gives up then). */
  whenFenced(): Promise<void> {
    if (this.fenced) return Promise.resolve();
    return new Promise((r) => this.onFence.push(r));
  }

  private buffer(): ArrayBufferLike {
    if (this.fenced) throw new MemoryFenced();
    return this.mem!.buffer;
  }

  /** A view of the whole memory now (a `memory.grow` makes a new one). */
  view(): DataView {
    const b = this.buffer();
    if (this.dv?.buffer !== b) this.dv = new DataView(b);
    return this.dv;
  }

  /** The bytes now. */
  bytes(): Uint8Array {
    const b = this.buffer();
    if (this.u8?.buffer !== b) this.u8 = new Uint8Array(b);
    return this.u8;
  }

  /** The memory's size in bytes now. */
  get size(): number {
    return this.buffer().byteLength;
  }

  /**
   * Traps unless `len` bytes at `ptr` lie inside memory and `ptr` is a
   * multiple of `align`.
   */
  check(ptr: number, len: number, align = 1): void {
    const size = this.size;
    if (ptr + len > size) {
      throw new GuestFault(
        `out-of-bounds pointer: ${len} bytes at ${ptr} (the memory has ${size})`,
      );
    }
    if (ptr % align !== 0) {
      throw new GuestFault(`misaligned pointer: ${ptr} (needs ${align}-byte alignment)`);
    }
  }

  /**
   * The UTF-8 string at `ptr`, `len` bytes long: a path (EILSEQ when not
   * UTF-8, ENAMETOOLONG past {@link MAX_PATH}).
   */
  string(ptr: number, len: number): string {
    this.check(ptr, len);
    if (len > MAX_PATH) throw new Errno(ERRNO.nametoolong);
    try {
      return decoder.decode(this.bytes().subarray(ptr, ptr + len));
    } catch {
      throw new Errno(ERRNO.ilseq);
    }
  }

  /**
   * Checks the iovec list at `iovs` (`count` entries: the list must lie in
   * memory) and the buffers of its first {@link MAX_IOVS} entries; returns
   * how many entries a transfer uses and their total length, at most `max`.
   */
  iovecs(iovs: number, count: number, max: number): { n: number; total: number } {
    this.check(iovs, count * IOV, LAYOUT.iovec.align);
    const n = Math.min(count, MAX_IOVS);
    const v = this.view();
    const size = v.byteLength;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const ptr = v.getUint32(iovs + i * IOV, true);
      const len = v.getUint32(iovs + i * IOV + IOV_LEN, true);
      if (ptr + len > size) {
        throw new GuestFault(
          `out-of-bounds pointer: iovec ${i} names ${len} bytes at ${ptr} (the memory has ${size})`,
        );
      }
      total += len;
    }
    return { n, total: Math.min(total, max) };
  }

  /**
   * A copy of at most `max` bytes gathered from the iovec list at `iovs`
   * (`count` entries; a bad one traps before anything moves). One iovec is
   * one slice, as before.
   */
  gather(iovs: number, count: number, max: number): Uint8Array {
    const { n, total } = this.iovecs(iovs, count, max);
    const v = this.view();
    const mem = this.bytes();
    if (n === 1) {
      const ptr = v.getUint32(iovs, true);
      return mem.slice(ptr, ptr + total);
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < n && at < total; i++) {
      const ptr = v.getUint32(iovs + i * IOV, true);
      const len = Math.min(v.getUint32(iovs + i * IOV + IOV_LEN, true), total - at);
      out.set(mem.subarray(ptr, ptr + len), at);
      at += len;
    }
    return out;
  }

  /**
   * Spreads `data` over the iovec list at `iovs` (checked by {@link iovecs}
   * before the read that made `data`); returns the count placed.
   */
  scatter(iovs: number, count: number, data: Uint8Array): number {
    const { n } = this.iovecs(iovs, count, data.length);
    const v = this.view();
    const mem = this.bytes();
    let at = 0;
    for (let i = 0; i < n && at < data.length; i++) {
      const ptr = v.getUint32(iovs + i * IOV, true);
      const len = Math.min(v.getUint32(iovs + i * IOV + IOV_LEN, true), data.length - at);
      mem.set(data.subarray(at, at + len), ptr);
      at += len;
    }
    return at;
  }

  /** Writes a u32 at `ptr` (4-aligned, in memory, else a trap). */
  u32(ptr: number, value: number): void {
    this.check(ptr, 4, 4);
    this.view().setUint32(ptr, value, true);
  }

  /** Writes a u64 at `ptr` (8-aligned, in memory, else a trap). */
  u64(ptr: number, value: bigint | number): void {
    this.check(ptr, 8, 8);
    this.view().setBigUint64(ptr, BigInt(value), true);
  }

  /**
   * Writes a list of strings as C strings at `buf` and their addresses at
   * `ptrs` (`args_get`, `environ_get`); both ranges are checked first.
   */
  stringList(list: Uint8Array[], ptrs: number, buf: number): void {
    this.check(ptrs, list.length * 4, 4);
    this.check(buf, list.reduce((n, s) => n + s.length + 1, 0));
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
