/**
 * The canonical ABI's layout of a WIT type: its size and alignment in
 * linear memory, its flat core types, and how a variant-like type (variant,
 * option, result, enum) maps to and from the values jco's bindings use
 * (`{tag, val}`, `undefined` for none, `{tag: "ok" | "err", val}`, a string).
 *
 * @module
 */

import type { WitType } from "./wit.ts";

/** A flat core value type. */
export type Flat = "i32" | "i64" | "f32" | "f64";

/** The byte size of a discriminant for `n` cases. */
export function discSize(n: number): number {
  return n <= 256 ? 1 : n <= 65536 ? 2 : 4;
}

/** The case payload types of a variant-like type; null for other types. */
export function casesOf(t: WitType): (WitType | undefined)[] | null {
  switch (t.k) {
    case "variant":
      return t.cases.map(([, c]) => c);
    case "option":
      return [undefined, t.of];
    case "result":
      return [t.ok, t.err];
    case "enum":
      return t.names.map(() => undefined);
    default:
      return null;
  }
}

const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;

/** Size and alignment of the scalars that are not 4 bytes. */
const SCALAR: Partial<Record<WitType["k"], number>> = {
  u8: 1,
  s8: 1,
  bool: 1,
  u16: 2,
  s16: 2,
  u64: 8,
  s64: 8,
  f64: 8,
};

/** The alignment of `t` in memory. */
export function alignOf(t: WitType): number {
  const scalar = SCALAR[t.k];
  if (scalar) return scalar;
  switch (t.k) {
    case "record":
      return Math.max(1, ...t.fields.map(([, f]) => alignOf(f)));
    case "tuple":
      return Math.max(1, ...t.of.map(alignOf));
    case "flags":
      return t.names.length <= 8 ? 1 : t.names.length <= 16 ? 2 : 4;
    default: {
      const cases = casesOf(t);
      if (!cases) return 4; // u32, s32, f32, char, string, list, handles
      return Math.max(discSize(cases.length), ...cases.map((c) => c ? alignOf(c) : 1));
    }
  }
}

/** The offset of a variant-like type's payload. */
export function payloadOffset(t: WitType): number {
  const cases = casesOf(t)!;
  return alignUp(discSize(cases.length), Math.max(1, ...cases.map((c) => c ? alignOf(c) : 1)));
}

/** The offsets of a record's fields or a tuple's elements. */
export function offsetsOf(types: WitType[]): number[] {
  let at = 0;
  return types.map((f) => {
    at = alignUp(at, alignOf(f));
    const here = at;
    at += sizeOf(f);
    return here;
  });
}

/** The size of `t` in memory. */
export function sizeOf(t: WitType): number {
  const scalar = SCALAR[t.k];
  if (scalar) return scalar;
  switch (t.k) {
    case "string":
    case "list":
      return 8;
    case "record":
    case "tuple": {
      const types = t.k === "record" ? t.fields.map(([, f]) => f) : t.of;
      if (types.length === 0) return 0;
      const offs = offsetsOf(types);
      return alignUp(offs[offs.length - 1] + sizeOf(types[types.length - 1]), alignOf(t));
    }
    case "flags":
      return alignOf(t);
    default: {
      const cases = casesOf(t);
      if (!cases) return 4;
      const payload = Math.max(0, ...cases.map((c) => c ? sizeOf(c) : 0));
      return alignUp(payloadOffset(t) + payload, alignOf(t));
    }
  }
}

/** Joins two flat types in one variant slot. */
function join(a: Flat, b: Flat): Flat {
  if (a === b) return a;
  if ((a === "i32" && b === "f32") || (a === "f32" && b === "i32")) return "i32";
  return "i64";
}

/** The flat core types of `t`. */
export function flatOf(t: WitType): Flat[] {
  switch (t.k) {
    case "u64":
    case "s64":
      return ["i64"];
    case "f32":
      return ["f32"];
    case "f64":
      return ["f64"];
    case "string":
    case "list":
      return ["i32", "i32"];
    case "record":
      return t.fields.flatMap(([, f]) => flatOf(f));
    case "tuple":
      return t.of.flatMap(flatOf);
    default: {
      const cases = casesOf(t);
      if (!cases) return ["i32"];
      const payload: Flat[] = [];
      for (const c of cases) {
        flatOf(c ?? { k: "tuple", of: [] }).forEach((f, i) => {
          payload[i] = i < payload.length ? join(payload[i], f) : f;
        });
      }
      return ["i32", ...payload];
    }
  }
}

/** A variant-like value's case index and payload, from jco's form. */
export function toCase(t: WitType, v: unknown): [number, unknown] {
  switch (t.k) {
    case "option":
      return v === undefined || v === null ? [0, undefined] : [1, v];
    case "result": {
      const r = v as { tag: string; val?: unknown };
      return [r.tag === "ok" ? 0 : 1, r.val];
    }
    case "enum": {
      const i = t.names.indexOf(v as string);
      if (i < 0) throw new TypeError(`not a case of the enum: ${v}`);
      return [i, undefined];
    }
    case "variant": {
      const r = v as { tag: string; val?: unknown };
      const i = t.cases.findIndex(([n]) => n === r.tag);
      if (i < 0) throw new TypeError(`not a case of the variant: ${r.tag}`);
      return [i, r.val];
    }
    default:
      throw new TypeError(`not a variant: ${t.k}`);
  }
}

/** A variant-like value in jco's form, from its case index and payload. */
export function fromCase(t: WitType, i: number, payload: unknown): unknown {
  switch (t.k) {
    case "option":
      if (i > 1) throw new TypeError("invalid option discriminant");
      return i === 0 ? undefined : payload;
    case "result":
      if (i > 1) throw new TypeError("invalid result discriminant");
      return { tag: i === 0 ? "ok" : "err", val: payload };
    case "enum":
      if (i >= t.names.length) throw new TypeError("invalid enum discriminant");
      return t.names[i];
    case "variant":
      if (i >= t.cases.length) throw new TypeError("invalid variant discriminant");
      return t.cases[i][1] ? { tag: t.cases[i][0], val: payload } : { tag: t.cases[i][0] };
    default:
      throw new TypeError(`not a variant: ${t.k}`);
  }
}
