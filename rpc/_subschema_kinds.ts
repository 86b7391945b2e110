/**
 * The subschema check for one JSON type on both sides: numbers, strings,
 * arrays and objects. `null` and `boolean` need nothing beyond the type.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import type { Node } from "./schema_scope.ts";
import { describe, type NumericBounds, numericBounds } from "./schema_describe.ts";
import { FORMAT_SAMPLES, samples, stringInside } from "./schema_sample.ts";
import {
  child,
  deepEqual,
  descend,
  fail,
  MAX_CANDIDATES,
  OK,
  type Result,
  type State,
  under,
  unproven,
} from "./_subschema_core.ts";

/** A numeric range; for integers both ends are inclusive. */
interface Interval {
  lo: number;
  loEx: boolean;
  hi: number;
  hiEx: boolean;
}

function interval(b: NumericBounds, integer: boolean): Interval {
  if (!integer) return { lo: b.lo, loEx: b.loExclusive, hi: b.hi, hiEx: b.hiExclusive };
  return {
    lo: b.loExclusive ? Math.floor(b.lo) + 1 : Math.ceil(b.lo),
    loEx: false,
    hi: b.hiExclusive ? Math.ceil(b.hi) - 1 : Math.floor(b.hi),
    hiEx: false,
  };
}

function inside(v: number, i: Interval): boolean {
  return (i.loEx ? v > i.lo : v >= i.lo) && (i.hiEx ? v < i.hi : v <= i.hi);
}

/** One unit in the last place of `x`, at least 1: the step to the next integer that differs. */
function step(x: number): number {
  return x === 0 ? 1 : Math.max(1, 2 ** (Math.floor(Math.log2(Math.abs(x))) - 52));
}

const above = (x: number) => x + step(x);
const below = (x: number) => x - step(x);

function isMultiple(v: number, m: number): boolean {
  const r = v / m;
  return Math.abs(r - Math.round(r)) < 1e-9;
}

/** Integers and numbers: integer-ness, range, and `multipleOf`. */
export function compareNumbers(sub: Node, sup: Node, subType: string, supType: string): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  const sb = numericBounds(s), pb = numericBounds(p);
  const subInt = subType === "integer" || sb.integerFormat;
  const supInt = supType === "integer" || pb.integerFormat;
  const si = interval(sb, subInt), pi = interval(pb, subInt);
  if (si.lo > si.hi || (si.lo === si.hi && (si.loEx || si.hiEx))) return OK; // no value at all
  const sm = typeof s.multipleOf === "number" ? s.multipleOf : undefined;
  const inSub = (v: number) =>
    Number.isFinite(v) && inside(v, si) && (!subInt || Number.isInteger(v)) &&
    (sm === undefined || isMultiple(v, sm));
  const differ = (code: "type" | "range", candidates: number[]) =>
    fail(
      code,
      `may be ${describe(sub)}, but must be ${describe(sup)}`,
      candidates.filter(inSub).map((v) => (v === 0 ? 0 : v)), // never -0
    );

  if (supInt && !subInt) {
    const mid = Number.isFinite(si.lo) && Number.isFinite(si.hi) ? (si.lo + si.hi) / 2 : 0.5;
    return differ("type", [0.5, mid, si.lo + 0.5, si.hi - 0.5].filter((v) => !Number.isInteger(v)));
  }
  if (si.lo < pi.lo || (si.lo === pi.lo && !si.loEx && pi.loEx)) {
    const edge = pi.loEx ? pi.lo : below(pi.lo);
    return differ("range", [Math.max(edge, si.lo), si.lo, edge, (si.lo + pi.lo) / 2]);
  }
  if (si.hi > pi.hi || (si.hi === pi.hi && !si.hiEx && pi.hiEx)) {
    const edge = pi.hiEx ? pi.hi : above(pi.hi);
    return differ("range", [Math.min(edge, si.hi), si.hi, edge, (si.hi + pi.hi) / 2]);
  }
  const pm = typeof p.multipleOf === "number" ? p.multipleOf : undefined;
  if (pm !== undefined) {
    const step = sm ?? (subInt ? 1 : undefined);
    if (step === undefined || !isMultiple(step, pm)) {
      const unit = step ?? pm / 2;
      const start = Number.isFinite(si.lo) ? Math.ceil(si.lo / unit) * unit : 0;
      const candidates = Array.from({ length: 20 }, (_, k) => start + k * unit)
        .filter((v) => !isMultiple(v, pm));
      return differ("range", candidates.slice(0, MAX_CANDIDATES));
    }
  }
  return OK;
}

/** Formats whose strings all have another format too: an `ipv4` is an `ip`. */
const FORMAT_WITHIN: Readonly<Record<string, readonly string[]>> = {
  ip: ["ipv4", "ipv6"],
};

/** Strings: length, format, pattern. */
export function compareStrings(sub: Node, sup: Node): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  const num = (v: unknown, d: number) => (typeof v === "number" ? v : d);
  const sMin = num(s.minLength, 0), sMax = num(s.maxLength, Infinity);
  const pMin = num(p.minLength, 0), pMax = num(p.maxLength, Infinity);
  if (sMin > sMax) return OK;
  const differ = (code: "length" | "format", candidates: string[]) =>
    fail(code, `may be ${describe(sub)}, but must be ${describe(sup)}`, candidates);
  const sample = stringInside(s);
  if (sMin < pMin) {
    return differ(
      "length",
      [sample, "a".repeat(Math.max(sMin, pMin - 1))].filter((c) => c.length < pMin),
    );
  }
  if (sMax > pMax) {
    return differ("length", [sample, "a".repeat(pMax + 1)].filter((c) => c.length > pMax));
  }
  const pf = p.format, sf = s.format;
  if (typeof pf === "string" && sf !== pf && !(FORMAT_WITHIN[pf] ?? []).includes(String(sf))) {
    if (FORMAT_SAMPLES[pf] === undefined) {
      return unproven(`that ${describe(sub)} is always of the unknown format "${pf}"`, [sample]);
    }
    return differ("format", [sample, "", "a"]);
  }
  if (typeof p.pattern === "string" && s.pattern !== p.pattern) {
    return unproven(`that ${describe(sub)} always matches /${p.pattern}/`, [sample, "", "a"]);
  }
  return OK;
}

/** An array schema seen as a tuple: the schema of each position, and the length range. */
interface Tuple {
  prefix: JsonSchema[];
  rest: JsonSchema;
  min: number;
  max: number;
}

function tupleOf(s: JsonSchemaObject): Tuple {
  let prefix: JsonSchema[] = [], rest: JsonSchema = true;
  if (Array.isArray(s.prefixItems)) {
    [prefix, rest] = [s.prefixItems, (s.items as JsonSchema) ?? true];
  } else if (Array.isArray(s.items)) {
    [prefix, rest] = [s.items, (s.additionalItems as JsonSchema) ?? true];
  } else if (s.items !== undefined) rest = s.items;
  const min = typeof s.minItems === "number" ? s.minItems : 0;
  let max = typeof s.maxItems === "number" ? s.maxItems : Infinity;
  if (rest === false) max = Math.min(max, prefix.length);
  return { prefix, rest, min, max };
}

const at = (t: Tuple, i: number): JsonSchema => (i < t.prefix.length ? t.prefix[i] : t.rest);

/** Arrays and tuples: length, the items position by position, `uniqueItems`. */
export function compareArrays(sub: Node, sup: Node, st: State): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  const S = tupleOf(s), P = tupleOf(p);
  if (S.min > S.max) return OK;
  /** An array of `length` sample items, with `values` at some positions. */
  const build = (length: number, values: Record<number, unknown> = {}): unknown[] => {
    if (length > 50) return [];
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) {
      const v = i in values ? values[i] : samples(child(sub, at(S, i)))[0];
      if (v === undefined) return [];
      out.push(v);
    }
    return [out];
  };
  const items = (n: number) => `${n} item${n === 1 ? "" : "s"}`;
  if (S.min < P.min) {
    return fail(
      "length",
      `may have ${items(S.min)}, but must have at least ${P.min}`,
      build(P.min - 1),
    );
  }
  if (S.max > P.max) {
    return fail(
      "length",
      `may have ${items(P.max + 1)}, but must have at most ${P.max}`,
      build(P.max + 1),
    );
  }
  const n = Math.max(S.prefix.length, P.prefix.length);
  for (let i = 0; i < n && i < S.max; i++) {
    const r = descend(st, child(sub, at(S, i)), child(sup, at(P, i)));
    if (!r.ok) return under({ index: i }, r, (c) => build(Math.max(i + 1, S.min), { [i]: c }));
  }
  if (S.max > n) {
    const r = descend(st, child(sub, S.rest), child(sup, P.rest));
    const seg = n === 0 ? { each: "item" as const } : { index: n };
    if (!r.ok) return under(seg, r, (c) => build(Math.max(n + 1, S.min), { [n]: c }));
  }
  if (p.uniqueItems === true && s.uniqueItems !== true && S.max >= 2) {
    const x = samples(child(sub, at(S, 0)))[0];
    const cex = x === undefined ? [] : build(Math.max(2, S.min), { 0: x, 1: x });
    return fail("unique", "may have equal items, but its items must be unique", cex);
  }
  return OK;
}

/** A field name that neither side lists. */
function freshKey(...taken: Record<string, unknown>[]): string {
  for (let i = 1;; i++) {
    const k = i === 1 ? "extra" : `extra${i}`;
    if (taken.every((t) => !Object.hasOwn(t, k))) return k;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Objects: required fields, each field, fields that only one side lists,
 * the other fields (`additionalProperties`: absent means any value), and
 * the number of fields.
 */
export function compareObjects(sub: Node, sup: Node, st: State): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  const sProps = s.properties ?? {}, pProps = p.properties ?? {};
  const sReq = new Set(s.required ?? []);
  const samePatterns = deepEqual(s.patternProperties, p.patternProperties);
  if (p.patternProperties !== undefined && !samePatterns) {
    return unproven(`that ${describe(sub)} satisfies the patternProperties of ${describe(sup)}`);
  }
  // Fields matched by the sub's patterns are treated as "any other field".
  const sExtra: JsonSchema = s.patternProperties !== undefined && !samePatterns
    ? true
    : (s.additionalProperties ?? true);
  const pExtra: JsonSchema = p.additionalProperties ?? true;
  const base = samples(sub).filter(isPlainObject);
  const withField = (k: string, v: unknown) => base.map((b) => ({ ...b, [k]: v }));

  const compareField = (k: string, pk: JsonSchema): Result => {
    const listed = Object.hasOwn(sProps, k);
    const sk = listed ? sProps[k] : sExtra;
    if (sk === false) return OK;
    const r = descend(st, child(sub, sk), child(sup, pk));
    if (r.ok) return OK;
    if (!listed && sk === true) {
      // The sub does not list the field: any value may come with that name.
      const detail = `"${k}" is not listed, so it may have any value, but must be ${
        describe(child(sup, pk))
      }`;
      return {
        ...fail("unlisted", detail, r.cex.flatMap((c) => withField(k, c)), { key: k }),
        unproven: r.unproven,
      };
    }
    return under({ key: k }, r, (c) => withField(k, c));
  };
  // Fields that both sides require first: a differing tag says more than a missing field.
  for (const k of [...sReq].filter((k) => Object.hasOwn(pProps, k))) {
    const r = compareField(k, pProps[k]);
    if (!r.ok) return r;
  }
  for (const k of p.required ?? []) {
    if (sReq.has(k)) continue;
    const absent = !Object.hasOwn(sProps, k);
    const cex = base.map((b) => Object.fromEntries(Object.entries(b).filter(([n]) => n !== k)));
    return fail("required", `"${k}" may be missing, but is required`, cex, { key: k, absent });
  }
  for (const [k, pk] of Object.entries(pProps)) {
    if (sReq.has(k)) continue; // compared above
    const r = compareField(k, pk);
    if (!r.ok) return r;
  }
  for (const [k, sk] of Object.entries(sProps)) {
    if (Object.hasOwn(pProps, k) || pExtra === true || sk === false) continue;
    if (pExtra === false) {
      const v = samples(child(sub, sk))[0];
      return fail("additional", `may have "${k}", which is not allowed`, withField(k, v), {
        key: k,
      });
    }
    const r = descend(st, child(sub, sk), child(sup, pExtra));
    if (!r.ok) return under({ key: k }, r, (c) => withField(k, c));
  }
  if (sExtra !== false && pExtra !== true) {
    const k = freshKey(sProps, pProps);
    if (pExtra === false) {
      const v = samples(child(sub, sExtra))[0];
      return fail("additional", "may have other fields, which are not allowed", withField(k, v));
    }
    const r = descend(st, child(sub, sExtra), child(sup, pExtra));
    if (!r.ok) return under({ each: "value" }, r, (c) => withField(k, c));
  }
  return compareFieldCounts(sub, sup, sExtra, base);
}

function compareFieldCounts(
  sub: Node,
  sup: Node,
  sExtra: JsonSchema,
  base: Record<string, unknown>[],
): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  const fields = (n: number) => `${n} field${n === 1 ? "" : "s"}`;
  if (typeof p.minProperties === "number") {
    const sMin = Math.max(
      typeof s.minProperties === "number" ? s.minProperties : 0,
      (s.required ?? []).length,
    );
    if (sMin < p.minProperties) {
      const cex = base.filter((b) => Object.keys(b).length < (p.minProperties as number));
      return fail(
        "count",
        `may have ${fields(sMin)}, but must have at least ${p.minProperties}`,
        cex,
      );
    }
  }
  if (typeof p.maxProperties === "number") {
    const listed = Object.keys(s.properties ?? {}).length;
    const sMax = typeof s.maxProperties === "number"
      ? s.maxProperties
      : sExtra === false
      ? listed
      : Infinity;
    if (sMax > p.maxProperties) {
      const most = p.maxProperties;
      return fail("count", `may have more than ${fields(most)}, but must have at most ${most}`);
    }
  }
  if (p.propertyNames !== undefined && !deepEqual(s.propertyNames, p.propertyNames)) {
    return unproven(`that every field name of ${describe(sub)} satisfies the new propertyNames`);
  }
  return OK;
}
