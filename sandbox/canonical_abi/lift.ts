/**
 * Core arguments and results across the canonical ABI, compiled once per
 * type: `liftOf` reads a parameter from a host function's core arguments
 * (a variant's payload from its joined slots), `lowerOf` makes a result
 * that is one core value. Values are in jco's form (`abi.ts`).
 *
 * @module
 */

import type { WitType } from "./wit.ts";
import { casesOf, type Flat, flatOf, fromCase, toCase } from "./layout.ts";
import { type Abi, flagsFrom, flagsTo, inMemory, type LiftFlat, loadList, memo } from "./abi.ts";

const decoder = new TextDecoder();
const lifts = new WeakMap<WitType, LiftFlat>();

/** A core argument of flat type `from` read as flat type `to` (a joined variant slot). */
function coerce(v: unknown, from: Flat, to: Flat): unknown {
  if (from === to) return v;
  if (from === "i64" && to === "i32") return Number(BigInt.asIntN(32, v as bigint));
  if (from === "i32" && to === "f32") {
    return new Float32Array(new Int32Array([v as number]).buffer)[0];
  }
  if (from === "i64" && to === "f64") {
    return new Float64Array(new BigInt64Array([v as bigint]).buffer)[0];
  }
  throw new TypeError(`cannot read a ${to} from a ${from} slot`);
}

/** Reads a `t` from core arguments. */
export function liftOf(t: WitType): LiftFlat {
  return memo(lifts, t, (): LiftFlat => {
    switch (t.k) {
      case "u8":
        return (_, r) => (r.args[r.i++] as number) & 0xff;
      case "s8":
        return (_, r) => ((r.args[r.i++] as number) << 24) >> 24;
      case "u16":
        return (_, r) => (r.args[r.i++] as number) & 0xffff;
      case "s16":
        return (_, r) => ((r.args[r.i++] as number) << 16) >> 16;
      case "u32":
        return (_, r) => (r.args[r.i++] as number) >>> 0;
      case "s32":
      case "f32":
      case "f64":
        return (_, r) => r.args[r.i++];
      case "bool":
        return (_, r) => r.args[r.i++] !== 0;
      case "char":
        return (_, r) => String.fromCodePoint((r.args[r.i++] as number) >>> 0);
      case "u64":
        return (_, r) => BigInt.asUintN(64, r.args[r.i++] as bigint);
      case "s64":
        return (_, r) => r.args[r.i++];
      case "string":
        return (a, r) => {
          const ptr = (r.args[r.i++] as number) >>> 0;
          const len = (r.args[r.i++] as number) >>> 0;
          inMemory(a, ptr, len);
          return decoder.decode(a.bytes().subarray(ptr, ptr + len));
        };
      case "list":
        return (a, r) => {
          const ptr = (r.args[r.i++] as number) >>> 0;
          return loadList(a, t.of, ptr, (r.args[r.i++] as number) >>> 0);
        };
      case "record": {
        const fields = t.fields.map(([n, f]) => [n, liftOf(f)] as const);
        return (a, r) => {
          const out: Record<string, unknown> = {};
          for (const [n, lift] of fields) out[n] = lift(a, r);
          return out;
        };
      }
      case "tuple": {
        const elems = t.of.map(liftOf);
        return (a, r) => elems.map((lift) => lift(a, r));
      }
      case "flags":
        return (_, r) => flagsFrom(t.names, r.args[r.i++] as number);
      case "own":
        return (a, r) => a.handles.take(r.args[r.i++] as number);
      case "borrow":
        return (a, r) => a.handles.get(r.args[r.i++] as number);
      default: {
        const cases = casesOf(t)!;
        const joined = flatOf(t).slice(1);
        const payloads = cases.map((c) => c && [liftOf(c), flatOf(c)] as const);
        return (a, r) => {
          const i = r.args[r.i++] as number;
          const start = r.i;
          r.i += joined.length;
          const c = payloads[i];
          if (!c) return fromCase(t, i, undefined);
          const [lift, flat] = c;
          const args = flat.map((f, j) => coerce(r.args[start + j], joined[j], f));
          return fromCase(t, i, lift(a, { args, i: 0 }));
        };
      }
    }
  });
}

/** Makes the one core value of a result whose flat form is one value. */
export function lowerOf(t: WitType): (abi: Abi, v: unknown) => unknown {
  switch (t.k) {
    case "u64":
    case "s64":
      return (_, v) => BigInt.asUintN(64, BigInt(v as bigint));
    case "bool":
      return (_, v) => v ? 1 : 0;
    case "char":
      return (_, v) => (v as string).codePointAt(0);
    case "own":
      return (a, v) => a.handles.add(v as object);
    case "flags":
      return (_, v) => flagsTo(t.names, v);
    case "u8":
    case "s8":
    case "u16":
    case "s16":
    case "u32":
    case "s32":
    case "f32":
    case "f64":
      return (_, v) => v;
    default:
      if (casesOf(t)?.every((c) => c === undefined)) return (_, v) => toCase(t, v)[0];
      throw new TypeError(`${t.k} is not returned as one value`);
  }
}
