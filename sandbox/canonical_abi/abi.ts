/**
 * Moving WIT values across the canonical ABI, compiled once per type into
 * closures: `load`/`store` read and write a value in linear memory (lists
 * and strings the host hands out are placed with the guest's
 * `cabi_realloc`); `lift.ts` reads parameters from core arguments. Values
 * are in jco's form, so the implementations in `sandbox/wasi/` serve both
 * paths.
 *
 * @module
 */

import type { WitType } from "./wit.ts";
import {
  alignOf,
  casesOf,
  discSize,
  fromCase,
  offsetsOf,
  payloadOffset,
  sizeOf,
  toCase,
} from "./layout.ts";
import type { Handles } from "./handles.ts";

/** The guest as a binding call sees it. */
export interface Abi {
  /** A view of the memory now (`cabi_realloc` may have grown it). */
  view(): DataView;
  /** The bytes of the memory now. */
  bytes(): Uint8Array;
  /** Space for `size` bytes aligned to `align`, from the guest's `cabi_realloc`. */
  alloc(align: number, size: number): number;
  handles: Handles;
}

/** Reads a value at an address. */
export type Load = (abi: Abi, ptr: number) => unknown;
/** Writes a value at an address. */
export type Store = (abi: Abi, ptr: number, v: unknown) => void;
/** Core arguments and the next one to read. */
export interface ArgReader {
  args: unknown[];
  i: number;
}
/** Reads a value from core arguments. */
export type LiftFlat = (abi: Abi, r: ArgReader) => unknown;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The most items of a list other than bytes a guest passes in one call
 * (pollables to `poll`, header fields): each becomes a host value, made in
 * one go, so a longer list traps rather than hold the thread.
 */
export const MAX_LIST_ITEMS = 65536;

/**
 * Traps unless `len` bytes at `ptr` lie in the guest's memory (the
 * canonical ABI traps on an out-of-bounds list or string): nothing is
 * clamped, and no host array is sized by a length the memory cannot hold.
 */
export function inMemory(abi: Abi, ptr: number, len: number): void {
  const size = abi.bytes().length;
  if (ptr + len > size) {
    throw new WebAssembly.RuntimeError(
      `out-of-bounds pointer: ${len} bytes at ${ptr} (the memory has ${size})`,
    );
  }
}

export function memo<F>(cache: WeakMap<WitType, F>, t: WitType, make: () => F): F {
  let f = cache.get(t);
  if (!f) cache.set(t, f = make());
  return f;
}

const loads = new WeakMap<WitType, Load>();
const stores = new WeakMap<WitType, Store>();

/** Writes `bytes` into fresh guest memory; returns its address. */
function place(abi: Abi, bytes: Uint8Array, align: number): number {
  if (bytes.length === 0) return align;
  const ptr = abi.alloc(align, bytes.length);
  abi.bytes().set(bytes, ptr);
  return ptr;
}

function bytesOf(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : Uint8Array.from(v as number[]);
}

/** The value of a `list<T>` at `ptr`, `len` elements. */
export function loadList(abi: Abi, of: WitType, ptr: number, len: number): unknown {
  if (of.k === "u8") {
    inMemory(abi, ptr, len);
    return abi.bytes().slice(ptr, ptr + len);
  }
  const size = sizeOf(of);
  inMemory(abi, ptr, len * size);
  if (len > MAX_LIST_ITEMS) {
    throw new WebAssembly.RuntimeError(
      `a list of ${len} items passed to the host: at most ${MAX_LIST_ITEMS} a call`,
    );
  }
  const load = loadOf(of);
  const out = new Array(len);
  for (let i = 0; i < len; i++) out[i] = load(abi, ptr + i * size);
  return out;
}

/** Places a `list<T>` in guest memory; returns its address and length. */
function storeList(abi: Abi, of: WitType, v: unknown): [number, number] {
  if (of.k === "u8") {
    const bytes = bytesOf(v);
    return [place(abi, bytes, 1), bytes.length];
  }
  const list = v as ArrayLike<unknown>;
  const size = sizeOf(of);
  const align = alignOf(of);
  if (list.length === 0) return [align, 0];
  const base = abi.alloc(align, size * list.length);
  const store = storeOf(of);
  for (let i = 0; i < list.length; i++) store(abi, base + i * size, list[i]);
  return [base, list.length];
}

export function flagsFrom(names: string[], bits: number): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  names.forEach((n, i) =>
    out[n.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase())] = !!(bits & (1 << i))
  );
  return out;
}

export function flagsTo(names: string[], v: unknown): number {
  const o = v as Record<string, boolean>;
  let bits = 0;
  names.forEach((n, i) => {
    if (o[n.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase())]) bits |= 1 << i;
  });
  return bits;
}

/** Reads a `t` from memory. */
export function loadOf(t: WitType): Load {
  return memo(loads, t, (): Load => {
    switch (t.k) {
      case "u8":
        return (a, p) => a.view().getUint8(p);
      case "s8":
        return (a, p) => a.view().getInt8(p);
      case "bool":
        return (a, p) => a.view().getUint8(p) !== 0;
      case "u16":
        return (a, p) => a.view().getUint16(p, true);
      case "s16":
        return (a, p) => a.view().getInt16(p, true);
      case "u32":
        return (a, p) => a.view().getUint32(p, true);
      case "s32":
        return (a, p) => a.view().getInt32(p, true);
      case "char":
        return (a, p) => String.fromCodePoint(a.view().getUint32(p, true));
      case "u64":
        return (a, p) => a.view().getBigUint64(p, true);
      case "s64":
        return (a, p) => a.view().getBigInt64(p, true);
      case "f32":
        return (a, p) => a.view().getFloat32(p, true);
      case "f64":
        return (a, p) => a.view().getFloat64(p, true);
      case "string":
        return (a, p) => {
          const v = a.view();
          const ptr = v.getUint32(p, true);
          const len = v.getUint32(p + 4, true);
          inMemory(a, ptr, len);
          return decoder.decode(a.bytes().subarray(ptr, ptr + len));
        };
      case "list":
        return (a, p) => {
          const v = a.view();
          return loadList(a, t.of, v.getUint32(p, true), v.getUint32(p + 4, true));
        };
      case "record": {
        const offs = offsetsOf(t.fields.map(([, f]) => f));
        const fields = t.fields.map(([n, f], i) => [n, loadOf(f), offs[i]] as const);
        return (a, p) => {
          const out: Record<string, unknown> = {};
          for (const [n, load, off] of fields) out[n] = load(a, p + off);
          return out;
        };
      }
      case "tuple": {
        const offs = offsetsOf(t.of);
        const elems = t.of.map((e, i) => [loadOf(e), offs[i]] as const);
        return (a, p) => elems.map(([load, off]) => load(a, p + off));
      }
      case "flags": {
        const size = sizeOf(t);
        return (a, p) => {
          const v = a.view();
          const bits = size === 1
            ? v.getUint8(p)
            : size === 2
            ? v.getUint16(p, true)
            : v.getUint32(p, true);
          return flagsFrom(t.names, bits);
        };
      }
      case "own":
        return (a, p) => a.handles.take(a.view().getUint32(p, true));
      case "borrow":
        return (a, p) => a.handles.get(a.view().getUint32(p, true));
      default: {
        const cases = casesOf(t)!;
        const disc = discSize(cases.length);
        const off = payloadOffset(t);
        const payloads = cases.map((c) => c && loadOf(c));
        return (a, p) => {
          const v = a.view();
          const i = disc === 1
            ? v.getUint8(p)
            : disc === 2
            ? v.getUint16(p, true)
            : v.getUint32(p, true);
          const load = payloads[i];
          return fromCase(t, i, load ? load(a, p + off) : undefined);
        };
      }
    }
  });
}

/** Writes a `t` into memory. */
export function storeOf(t: WitType): Store {
  return memo(stores, t, (): Store => {
    switch (t.k) {
      case "u8":
      case "s8":
        return (a, p, v) => a.view().setUint8(p, v as number);
      case "bool":
        return (a, p, v) => a.view().setUint8(p, v ? 1 : 0);
      case "u16":
      case "s16":
        return (a, p, v) => a.view().setUint16(p, v as number, true);
      case "u32":
      case "s32":
        return (a, p, v) => a.view().setUint32(p, (v as number) >>> 0, true);
      case "char":
        return (a, p, v) => a.view().setUint32(p, (v as string).codePointAt(0)!, true);
      case "u64":
      case "s64":
        return (a, p, v) => a.view().setBigUint64(p, BigInt.asUintN(64, BigInt(v as bigint)), true);
      case "f32":
        return (a, p, v) => a.view().setFloat32(p, v as number, true);
      case "f64":
        return (a, p, v) => a.view().setFloat64(p, v as number, true);
      case "string":
        return (a, p, v) => {
          const bytes = encoder.encode(v as string);
          const ptr = place(a, bytes, 1);
          const view = a.view();
          view.setUint32(p, ptr, true);
          view.setUint32(p + 4, bytes.length, true);
        };
      case "list":
        return (a, p, v) => {
          const [ptr, len] = storeList(a, t.of, v);
          const view = a.view();
          view.setUint32(p, ptr, true);
          view.setUint32(p + 4, len, true);
        };
      case "record": {
        const offs = offsetsOf(t.fields.map(([, f]) => f));
        const fields = t.fields.map(([n, f], i) => [n, storeOf(f), offs[i]] as const);
        return (a, p, v) => {
          const o = v as Record<string, unknown>;
          for (const [n, store, off] of fields) store(a, p + off, o[n]);
        };
      }
      case "tuple": {
        const offs = offsetsOf(t.of);
        const elems = t.of.map((e, i) => [storeOf(e), offs[i]] as const);
        return (a, p, v) => {
          const o = v as unknown[];
          elems.forEach(([store, off], i) => store(a, p + off, o[i]));
        };
      }
      case "flags": {
        const size = sizeOf(t);
        return (a, p, v) => {
          const bits = flagsTo(t.names, v);
          const view = a.view();
          if (size === 1) view.setUint8(p, bits);
          else if (size === 2) view.setUint16(p, bits, true);
          else view.setUint32(p, bits, true);
        };
      }
      case "own":
        return (a, p, v) => a.view().setUint32(p, a.handles.add(v as object), true);
      case "borrow":
        return () => {
          throw new TypeError("a host function cannot hand out a borrow");
        };
      default: {
        const cases = casesOf(t)!;
        const disc = discSize(cases.length);
        const off = payloadOffset(t);
        const payloads = cases.map((c) => c && storeOf(c));
        return (a, p, v) => {
          const [i, payload] = toCase(t, v);
          const view = a.view();
          if (disc === 1) view.setUint8(p, i);
          else if (disc === 2) view.setUint16(p, i, true);
          else view.setUint32(p, i, true);
          payloads[i]?.(a, p + off, payload);
        };
      }
    }
  });
}
