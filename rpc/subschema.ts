/**
 * Is every value of one JSON Schema valid for another? The core of the
 * interface check (section 10.2), for the subset of JSON Schema that Rust
 * types produce through schemars: objects (fields, required,
 * `additionalProperties`), maps, strings (length, format), integers and
 * numbers (range, integer formats such as `uint16`, `multipleOf`),
 * booleans, null, arrays and tuples, enums (`enum`, `const`, `oneOf`,
 * `anyOf`), `Option<T>` (`type: [T, "null"]`, `anyOf` with `null`),
 * `allOf`, and `$ref` to named schemas (see `schema_scope.ts`).
 *
 * Semantics are those of JSON Schema: an object schema without
 * `additionalProperties` accepts other fields with any value. So a
 * consumer's view of a result tolerates the fields a provider adds, and a
 * provider that drops an optional result field that a consumer still reads
 * breaks it (its objects may then carry that field with any value).
 *
 * The check is sound and not complete: "ok" is a proof. Whatever it cannot
 * decide is a failure whose reason starts with "cannot prove": a `pattern`
 * or a keyword it does not know that differs between the sides, a value
 * that several `oneOf` branches may match, a union that only several
 * branches together cover, a `$ref` cycle without nesting, nesting deeper
 * than the limit. A counterexample is reported only after the validator
 * (`schema_validator.ts`) has confirmed that it is valid for the sub schema
 * and invalid for the sup schema.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject, SchemaDefs } from "./json_schema.ts";
import { enter, follow, isSchemaObject, type Node, resolveRef, rootNode } from "./schema_scope.ts";
import { tryCompileNode } from "./schema_validator.ts";
import { describe, formatJson } from "./schema_describe.ts";
import { samples } from "./schema_sample.ts";
import {
  asObject,
  child,
  deepEqual,
  type Fail,
  fail,
  type FailCode,
  hasAssertions,
  isAnnotation,
  OK,
  type Result,
  type Seg,
  SIBLING_DEPENDENT,
  type State,
  typesOf,
  UNDERSTOOD,
  unproven,
  without,
} from "./_subschema_core.ts";
import {
  compareArrays,
  compareNumbers,
  compareObjects,
  compareStrings,
} from "./_subschema_kinds.ts";
import {
  compareToValues,
  compareUnion,
  compareValues,
  confirm,
  disjoint,
} from "./_subschema_lists.ts";

export type { FailCode, Seg };

/** The answer of the check. */
export type Verdict =
  | { ok: true }
  | {
    ok: false;
    /** What differs and where, e.g. `at count: may be string, but must be integer`. */
    reason: string;
    /** A value valid for the sub schema and invalid for the sup schema, when one was found. */
    counterexample?: unknown;
    /** Where in the value, e.g. `items[].count`; empty at the top. */
    path: string;
    /** The same place, step by step. */
    segments: Seg[];
    /** What kind of difference. */
    code: FailCode;
    /** The field that a `required`, `unlisted` or `additional` difference is about. */
    key?: string;
    /** For `required`: the sub schema does not list the field at all. */
    absent?: boolean;
    /**
     * True when the check could not decide (the reason starts with "cannot
     * prove") and found no counterexample either.
     */
    cannotProve: boolean;
  };

/** Limits of one check. */
export interface SubschemaOptions {
  /** How deep comparisons may nest before the check gives up; 64 by default. */
  maxDepth?: number;
}

/** Values tried as counterexamples when the specific candidates fail. */
const GENERIC_CANDIDATES: unknown[] = [null, false, 0, 0.5, -1, "", [], {}];

/**
 * True when every value valid for `sub` is valid for `sup`, where the
 * `$ref`s of each resolve in its own `defs` (`components.schemas`).
 */
export function isSubschema(
  sub: JsonSchema,
  subDefs: SchemaDefs,
  sup: JsonSchema,
  supDefs: SchemaDefs,
  options: SubschemaOptions = {},
): Verdict {
  return isSubschemaNode(rootNode(sub, subDefs), rootNode(sup, supDefs), options);
}

/** `isSubschema` for schemas that already carry their scope. */
export function isSubschemaNode(sub: Node, sup: Node, options: SubschemaOptions = {}): Verdict {
  const st: State = {
    depth: 0,
    maxDepth: options.maxDepth ?? 64,
    guard: 0,
    assumed: new Map(),
    check,
  };
  const r = check(sub, sup, st);
  if (r.ok) return { ok: true };
  const path = formatPath(r.path);
  const found = confirm(
    [...r.cex, ...GENERIC_CANDIDATES],
    tryCompileNode(sub),
    tryCompileNode(sup),
  );
  return {
    ok: false,
    reason: path ? `at ${path}: ${r.detail}` : r.detail,
    path,
    segments: r.path,
    code: r.code,
    // A confirmed counterexample settles what the check could not decide.
    cannotProve: r.unproven && found.length === 0,
    ...(r.key !== undefined ? { key: r.key } : {}),
    ...(r.absent !== undefined ? { absent: r.absent } : {}),
    ...(found.length > 0 ? { counterexample: found[0] } : {}),
  };
}

/** A path for people: `items[].count`, `tags[0]`, `labels.*`. */
export function formatPath(path: Seg[]): string {
  let out = "";
  for (const seg of path) {
    if ("key" in seg) {
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg.key)
        ? `${out ? "." : ""}${seg.key}`
        : `[${JSON.stringify(seg.key)}]`;
    } else if ("index" in seg) out += `[${seg.index}]`;
    else if (seg.each === "item") out += "[]";
    else out += out ? ".*" : "*";
  }
  return out;
}

function check(subIn: Node, supIn: Node, st: State): Result {
  if (st.depth >= st.maxDepth) {
    return unproven(`it within ${st.maxDepth} levels of nesting`);
  }
  const sub = follow(subIn); // keywords beside a $ref only narrow the sub: ignoring them is safe
  if ("error" in sub) return unproven(`it: ${sub.error}`);
  const sup = derefSup(supIn);
  if ("error" in sup) return unproven(`it: ${sup.error}`);
  st.depth++;
  try {
    const a = sub.schema, b = sup.schema;
    const viaRef = sub !== subIn || sup !== supIn;
    if (!viaRef || !isSchemaObject(a) || !isSchemaObject(b)) return compare(sub, sup, st);
    let started = st.assumed.get(a);
    const at = started?.get(b);
    if (at !== undefined) {
      // Coinduction: the same pair again, one field or item further down.
      return at < st.guard ? OK : unproven(`it: a $ref refers to itself without nesting`);
    }
    if (!started) st.assumed.set(a, started = new Map());
    started.set(b, st.guard);
    try {
      return compare(sub, sup, st);
    } finally {
      started.delete(b);
    }
  } finally {
    st.depth--;
  }
}

/** Follows `$ref`s of the sup; keywords beside a `$ref` still apply there (as an `allOf`). */
function derefSup(node: Node): Node | { error: string } {
  let current = enter(node);
  for (let hops = 0; hops < 64; hops++) {
    const s = current.schema;
    if (!isSchemaObject(s) || typeof s.$ref !== "string") return current;
    if (hasAssertions(s, ["$ref"])) {
      return { schema: { allOf: [{ $ref: s.$ref }, without(s, ["$ref"])] }, scope: current.scope };
    }
    const next = resolveRef(s.$ref, current.scope);
    if ("error" in next) return next;
    current = next;
  }
  return { error: "$ref leads to $ref 64 times in a row" };
}

function compare(sub: Node, sup: Node, st: State): Result {
  const s = sub.schema, p = sup.schema;
  if (p === true || (isSchemaObject(p) && !hasAssertions(p))) return OK;
  if (s === false) return OK;
  if (!isSchemaObject(p)) {
    return fail("never", `may be ${describe(sub)}, but no value is allowed`, samples(sub));
  }
  const so = asObject(s);
  if (so.const !== undefined || Array.isArray(so.enum)) return compareValues(sub, sup);
  const union = so.oneOf ?? so.anyOf;
  if (Array.isArray(union)) {
    // Each branch alone (keywords beside the union only narrow it).
    for (const branch of union) {
      const r = st.check(child(sub, branch), sup, st);
      if (!r.ok) return r;
    }
    return OK;
  }
  if (Array.isArray(so.allOf)) return compareConjuncts(sub, so, sup, st);
  const types = typesOf(so);
  if (types.length === 1) return compareSingle({ schema: so, scope: sub.scope }, types[0], sup, st);
  for (const type of types) {
    const r = st.check({ schema: { ...so, type }, scope: sub.scope }, sup, st);
    if (!r.ok) return r;
  }
  return OK;
}

/** A sub `allOf`: each part alone is a superset of it, so one part that fits proves it. */
function compareConjuncts(sub: Node, so: JsonSchemaObject, sup: Node, st: State): Result {
  const parts: JsonSchema[] = [...(so.allOf ?? [])];
  const rest = without(so, ["allOf"]);
  if (hasAssertions(rest)) parts.push(rest);
  let first: Fail | undefined;
  for (const part of parts) {
    const r = st.check(child(sub, part), sup, st);
    if (r.ok) return OK;
    first ??= r;
  }
  if (!first || parts.length === 1) return first ?? OK;
  return {
    ...first,
    code: "unproven",
    unproven: true,
    detail: `cannot prove it for each part of an allOf alone: ${first.detail}`,
  };
}

/** The sub allows one JSON type. */
function compareSingle(sub: Node, type: string, sup: Node, st: State): Result {
  const p = sup.schema as JsonSchemaObject;
  if (Array.isArray(p.allOf)) {
    for (const part of [without(p, ["allOf"]), ...p.allOf]) {
      const r = st.check(sub, child(sup, part), st);
      if (!r.ok) return r;
    }
    return OK;
  }
  if (Array.isArray(p.anyOf) || Array.isArray(p.oneOf)) {
    const rest = without(p, ["anyOf", "oneOf"]);
    const parts: [JsonSchema[] | undefined, boolean][] = [[p.anyOf, false], [p.oneOf, true]];
    if (hasAssertions(rest)) {
      const r = st.check(sub, child(sup, rest), st);
      if (!r.ok) return r;
    }
    for (const [branches, exclusive] of parts) {
      if (!branches) continue;
      const r = compareUnion(
        sub,
        child(sup, { [exclusive ? "oneOf" : "anyOf"]: branches }),
        branches,
        exclusive,
        st,
      );
      if (!r.ok) return r;
    }
    return OK;
  }
  if (p.const !== undefined || Array.isArray(p.enum)) return compareToValues(sub, type, sup);
  if (p.not !== undefined) {
    const not = child(sup, p.not as JsonSchema);
    if (!disjoint(sub, not, 0)) {
      return unproven(`that ${describe(sub)} is never ${describe(not)}`, samples(sub));
    }
  }
  const pTypes = typesOf(p);
  // An integer is a number; some numbers are integers (compareNumbers sorts them out).
  const pType = pTypes.includes(type)
    ? type
    : type === "integer" && pTypes.includes("number")
    ? "number"
    : type === "number" && pTypes.includes("integer")
    ? "integer"
    : undefined;
  if (pType === undefined) {
    return fail("kind", `may be ${describe(sub)}, but must be ${describe(sup)}`, samples(sub));
  }
  let r: Result = OK;
  if (type === "integer" || type === "number") r = compareNumbers(sub, sup, type, pType);
  else if (type === "string") r = compareStrings(sub, sup);
  else if (type === "array") r = compareArrays(sub, sup, st);
  else if (type === "object") r = compareObjects(sub, sup, st);
  return r.ok ? compareOtherKeywords(sub, sup) : r;
}

/** Keywords the check does not understand: the sup's must be equal to the sub's. */
function compareOtherKeywords(sub: Node, sup: Node): Result {
  const s = sub.schema as JsonSchemaObject, p = sup.schema as JsonSchemaObject;
  for (const k of Object.keys(p)) {
    if (UNDERSTOOD.has(k) || isAnnotation(k)) continue;
    const equal = SIBLING_DEPENDENT.has(k)
      ? deepEqual(s, p) && !JSON.stringify(s).includes('"$ref"')
      : deepEqual(s[k], p[k]);
    if (!equal) {
      return unproven(`that ${describe(sub)} satisfies "${k}": ${formatJson(p[k])}`, samples(sub));
    }
  }
  return OK;
}
