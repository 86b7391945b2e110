/**
 * Internals of the subschema check shared by its files: the result of a
 * comparison, the state of one check, keyword classes, and small helpers.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import { isSchemaObject, type Node } from "./schema_scope.ts";

/** One step into a value: a field, a tuple position, every array item, every other field. */
export type Seg =
  | { key: string }
  | { index: number }
  | { each: "item" }
  | { each: "value" };

/** What kind of difference a failure is. */
export type FailCode =
  | "kind"
  | "type"
  | "range"
  | "length"
  | "format"
  | "value"
  | "required"
  | "unlisted"
  | "additional"
  | "count"
  | "unique"
  | "never"
  | "unproven";

/** A failed comparison, relative to the schemas it compared. */
export interface Fail {
  ok: false;
  code: FailCode;
  /** What differs, e.g. `may be string, but must be integer`. */
  detail: string;
  /** Where in the value, from the compared schemas down. */
  path: Seg[];
  /** Candidate counterexamples, best first; the caller verifies them. */
  cex: unknown[];
  /** The field that `required`, `unlisted` or `additional` is about. */
  key?: string;
  /** For `required`: true when the sub schema has no such field at all. */
  absent?: boolean;
  /** True when the check could not decide, rather than found a difference. */
  unproven: boolean;
}

/** The result of one comparison. */
export type Result = { ok: true } | Fail;

/** Success. */
export const OK: Result = { ok: true };

/** The state of one top-level check. */
export interface State {
  /** Nesting of comparisons so far. */
  depth: number;
  /** The nesting limit: deeper is "cannot prove". */
  maxDepth: number;
  /** Descents into a field or an item so far: a `$ref` cycle must pass one. */
  guard: number;
  /** Pairs of schemas under comparison (the sub, the sup), with the guard when they started. */
  assumed: Map<object, Map<object, number>>;
  /** The comparison itself, for the per-type files. */
  check(sub: Node, sup: Node, st: State): Result;
}

/** At most this many candidate counterexamples travel up. */
export const MAX_CANDIDATES = 6;

/** A difference. */
export function fail(
  code: FailCode,
  detail: string,
  cex: unknown[] = [],
  extra: { key?: string; absent?: boolean } = {},
): Fail {
  return {
    ok: false,
    code,
    detail,
    path: [],
    cex: cex.slice(0, MAX_CANDIDATES),
    unproven: false,
    ...extra,
  };
}

/** A question the check cannot decide; it counts as a failure. */
export function unproven(detail: string, cex: unknown[] = []): Fail {
  return { ...fail("unproven", `cannot prove ${detail}`, cex), unproven: true };
}

/** A failure one step further down: the path grows and every candidate is wrapped. */
export function under(seg: Seg, f: Fail, wrap: (inner: unknown) => unknown[]): Fail {
  const cex = f.cex.flatMap(wrap).filter((c) => c !== undefined).slice(0, MAX_CANDIDATES);
  return { ...f, path: [seg, ...f.path], cex };
}

/** Keywords that never reject a value. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "$schema",
  "$id",
  "$anchor",
  "$defs",
  "definitions",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
]);

/** True for a keyword that never rejects a value (including `x-` extensions). */
export function isAnnotation(keyword: string): boolean {
  return ANNOTATIONS.has(keyword) || keyword.startsWith("x-");
}

/** True when a schema object has a keyword that can reject a value. */
export function hasAssertions(s: JsonSchemaObject, except: readonly string[] = []): boolean {
  return Object.keys(s).some((k) => !isAnnotation(k) && !except.includes(k));
}

/** A copy without some keywords. */
export function without(s: JsonSchemaObject, keys: readonly string[]): JsonSchemaObject {
  return Object.fromEntries(Object.entries(s).filter(([k]) => !keys.includes(k)));
}

/**
 * Keywords whose meaning depends on their siblings: equal values on both
 * sides prove nothing unless the whole schemas are equal.
 */
export const SIBLING_DEPENDENT = new Set([
  "unevaluatedProperties",
  "unevaluatedItems",
  "if",
  "then",
  "else",
  "contains",
  "minContains",
  "maxContains",
  "dependentSchemas",
]);

/** The assertion keywords that the check understands; others must be equal on both sides. */
export const UNDERSTOOD = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "items",
  "prefixItems",
  "additionalItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "minProperties",
  "maxProperties",
  "propertyNames",
]);

/** The JSON types a value can have; `integer` values are also `number`s. */
const ALL_TYPES = ["null", "boolean", "number", "string", "array", "object"] as const;

/** The types a schema object allows: its `type`, or every type. */
export function typesOf(s: JsonSchemaObject): string[] {
  if (Array.isArray(s.type)) return s.type.map(String);
  if (typeof s.type === "string") return [s.type];
  return [...ALL_TYPES];
}

/** Structural equality of JSON values. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}

/** The node of a subschema that sits in the same scope as its parent. */
export function child(parent: Node, schema: JsonSchema): Node {
  return { schema, scope: parent.scope };
}

/** A schema object, or an empty one for `true`. */
export function asObject(s: JsonSchema): JsonSchemaObject {
  return isSchemaObject(s) ? s : {};
}

/** Compares one level down (a field, an item): a `$ref` cycle may close below this point. */
export function descend(st: State, sub: Node, sup: Node): Result {
  st.guard++;
  try {
    return st.check(sub, sup, st);
  } finally {
    st.guard--;
  }
}
