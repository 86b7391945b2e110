/**
 * The subschema check where values are listed or alternatives offered:
 * `enum`/`const` on either side, a sup `anyOf`/`oneOf`, and the proof that
 * two schemas share no value (for `oneOf` and `not`).
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import { follow, isSchemaObject, type Node } from "./schema_scope.ts";
import { compileNode, type SchemaValidator, tryCompileNode } from "./schema_validator.ts";
import { describe, formatJson, numericBounds } from "./schema_describe.ts";
import { samples } from "./schema_sample.ts";
import {
  child,
  type Fail,
  fail,
  OK,
  type Result,
  type State,
  typesOf,
  unproven,
} from "./_subschema_core.ts";

/** The candidates that are valid for the sub validator and invalid for the sup validator. */
export function confirm(
  candidates: unknown[],
  vSub?: SchemaValidator,
  vSup?: SchemaValidator,
): unknown[] {
  if (!vSub || !vSup) return [];
  return candidates.filter((c) => c !== undefined && vSub(c) && !vSup(c));
}

/** A sub that lists its values: each value is tested against the sup. */
export function compareValues(sub: Node, sup: Node): Result {
  const so = sub.schema as JsonSchemaObject;
  const values = so.const !== undefined ? [so.const] : (so.enum as unknown[]);
  const vSub = tryCompileNode(sub);
  let vSup: SchemaValidator;
  try {
    vSup = compileNode(sup);
  } catch (e) {
    return unproven(`it: ${e instanceof Error ? e.message : String(e)}`);
  }
  for (const v of values) {
    if (vSub && !vSub(v)) continue; // listed, but excluded by a sibling keyword
    if (!vSup(v)) {
      return fail("value", `may be ${formatJson(v)}, but must be ${describe(sup)}`, [v]);
    }
  }
  return OK;
}

/** A sup `anyOf`/`oneOf`: the sub must fit one branch (and, for `oneOf`, miss the others). */
export function compareUnion(
  sub: Node,
  sup: Node,
  branches: JsonSchema[],
  exclusive: boolean,
  st: State,
): Result {
  const fails: Fail[] = [];
  for (let i = 0; i < branches.length; i++) {
    const r = st.check(sub, child(sup, branches[i]), st);
    if (!r.ok) {
      fails.push(r);
      continue;
    }
    if (exclusive && branches.some((b, j) => j !== i && !disjoint(sub, child(sup, b), 0))) {
      return unproven(
        `that every ${describe(sub)} matches only one branch of ${describe(sup)}`,
        samples(sub),
      );
    }
    return OK;
  }
  // Branches that reject the sub's JSON type outright hold none of its values.
  const close = fails.filter((f) => !(f.code === "kind" && f.path.length === 0));
  if (close.length === 0) {
    return fail("kind", `may be ${describe(sub)}, but must be ${describe(sup)}`, samples(sub));
  }
  if (close.length === 1) return close[0];
  // Several branches of the sub's type: report the one that differs deepest,
  // skipping those that are plainly other variants: a different tag value,
  // or a field that the sub does not have (the key of an externally tagged variant).
  const informative = close.filter((f) =>
    !(f.code === "value" && f.path.length === 1) &&
    !(f.code === "required" && f.absent && f.path.length === 0)
  );
  const best = informative.length > 0
    ? informative.reduce((a, b) => (b.path.length > a.path.length ? b : a))
    : fail("value", `may be ${describe(sub)}, but must be ${describe(sup)}`);
  const candidates = [...best.cex, ...close.flatMap((f) => f.cex), ...samples(sub)];
  const proven = confirm(candidates, tryCompileNode(sub), tryCompileNode(sup));
  if (proven.length > 0) return { ...best, cex: proven };
  return {
    ...best,
    code: "unproven",
    unproven: true,
    detail: `cannot prove that ${describe(sub)} fits one of ${
      describe(sup)
    }; closest: ${best.detail}`,
  };
}

/** A sup that lists its values, and a sub of one JSON type that does not. */
export function compareToValues(sub: Node, type: string, sup: Node): Result {
  const p = sup.schema as JsonSchemaObject;
  const values = p.const !== undefined ? [p.const] : (p.enum as unknown[]);
  if (!values.some((v) => overlaps(jsonType(v), type))) {
    // None of the listed values has the sub's JSON type.
    return fail("kind", `may be ${describe(sub)}, but must be ${describe(sup)}`, samples(sub));
  }
  let vSup: SchemaValidator;
  try {
    vSup = compileNode(sup);
  } catch (e) {
    return unproven(`it: ${e instanceof Error ? e.message : String(e)}`);
  }
  const vSub = tryCompileNode(sub);
  const s = sub.schema as JsonSchemaObject;
  const listed = values.length;
  const b = numericBounds(s);
  const isInt = type === "integer" || (type === "number" && b.integerFormat);
  const lo = b.loExclusive ? Math.floor(b.lo) + 1 : Math.ceil(b.lo);
  const hi = b.hiExclusive ? Math.ceil(b.hi) - 1 : Math.floor(b.hi);
  let finite: unknown[] | undefined;
  if (type === "null") finite = [null];
  else if (type === "boolean") finite = [false, true];
  else if (isInt && hi - lo < 256) {
    finite = Array.from({ length: Math.max(0, hi - lo + 1) }, (_, i) => lo + i);
  } else if (type === "string" && s.maxLength === 0) finite = [""];
  if (finite) {
    for (const v of finite) {
      if (vSub && !vSub(v)) continue;
      if (!vSup(v)) {
        return fail("value", `may be ${formatJson(v)}, but must be ${describe(sup)}`, [v]);
      }
    }
    return OK;
  }
  const extra = type === "string" ? ["", "a", "b", "other"] : [0, 1, -1, 2, 0.5];
  const candidates = [...samples(sub), ...extra];
  const proven = confirm(candidates, vSub, vSup);
  const detail = `may be ${describe(sub)}, but must be ${describe(sup)}`;
  // Any number or string, apart from a pattern, has more values than a list.
  const infinite = (type === "string" && s.pattern === undefined) ||
    (type === "number" && !isInt) || (isInt && hi - lo + 1 > listed);
  if (proven.length > 0 || infinite) {
    return fail("value", detail, proven.length ? proven : candidates);
  }
  return unproven(`that ${describe(sub)} is always ${describe(sup)}`, candidates);
}

/** The JSON type of a value, as `type` names it. */
function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const overlaps = (a: string, b: string) =>
  a === b || (a === "integer" && b === "number") || (a === "number" && b === "integer");

/** True only when no value is valid for both schemas (false means "not proven"). */
export function disjoint(a: Node, b: Node, depth: number): boolean {
  if (depth > 16) return false;
  const fa = follow(a), fb = follow(b);
  if ("error" in fa || "error" in fb) return false;
  const sa = fa.schema, sb = fb.schema;
  if (sa === false || sb === false) return true;
  if (!isSchemaObject(sa) || !isSchemaObject(sb)) return false;
  const listedA = sa.const !== undefined ? [sa.const] : sa.enum;
  if (Array.isArray(listedA)) {
    const vb = tryCompileNode(fb);
    return vb !== undefined && listedA.every((v) => !vb(v));
  }
  const listedB = sb.const !== undefined ? [sb.const] : sb.enum;
  if (Array.isArray(listedB)) {
    const va = tryCompileNode(fa);
    return va !== undefined && listedB.every((v) => !va(v));
  }
  const ua = sa.anyOf ?? sa.oneOf, ub = sb.anyOf ?? sb.oneOf;
  if (Array.isArray(ua)) return ua.every((x) => disjoint(child(fa, x), fb, depth + 1));
  if (Array.isArray(ub)) return ub.every((x) => disjoint(fa, child(fb, x), depth + 1));
  if (sa.allOf?.some((x) => disjoint(child(fa, x), fb, depth + 1))) return true;
  if (sb.allOf?.some((x) => disjoint(fa, child(fb, x), depth + 1))) return true;
  const tb = typesOf(sb);
  const common = typesOf(sa).filter((t) => tb.some((u) => overlaps(t, u)));
  if (common.length === 0) return true;
  return common.every((t) => t === "object") && objectsDisjoint(fa, fb, depth);
}

/** Objects are disjoint when one requires a field that the other forbids or types apart. */
function objectsDisjoint(a: Node, b: Node, depth: number): boolean {
  const one = (x: Node, y: Node): boolean => {
    const sx = x.schema as JsonSchemaObject, sy = y.schema as JsonSchemaObject;
    const yProps = sy.properties ?? {};
    const yClosed = sy.additionalProperties === false && sy.patternProperties === undefined;
    return (sx.required ?? []).some((k) => {
      if (!Object.hasOwn(yProps, k)) return yClosed;
      const xk = sx.properties?.[k] ??
        (sx.patternProperties !== undefined ? true : sx.additionalProperties ?? true);
      return disjoint(child(x, xk), child(y, yProps[k]), depth + 1);
    });
  };
  return one(a, b) || one(b, a);
}
