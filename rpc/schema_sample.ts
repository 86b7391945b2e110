/**
 * Sample values of a schema: the raw material of counterexamples. A sample
 * is the schema's first documented example when it has one (people know
 * these values: `{"text": "milk"}`), and otherwise a small value built
 * from the schema: `""`, `0` moved into the range, `[]`, an object with
 * only its required fields.
 *
 * Samples are candidates, not promises: a pattern or an exotic keyword can
 * make one invalid. Whoever shows a sample to a person checks it with the
 * validator first.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import { follow, isSchemaObject, type Node } from "./schema_scope.ts";
import { numericBounds } from "./schema_describe.ts";

/** A value of each string format that ajv-formats knows, and of `ip`. */
export const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  "date-time": "1970-01-01T00:00:00Z",
  "iso-date-time": "1970-01-01T00:00:00Z",
  date: "1970-01-01",
  time: "00:00:00Z",
  "iso-time": "00:00:00Z",
  duration: "P1D",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "https://example.com/",
  "uri-template": "https://example.com/",
  email: "someone@example.com",
  hostname: "example.com",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  ip: "127.0.0.1",
  uuid: "00000000-0000-0000-0000-000000000000",
  regex: "a",
  "json-pointer": "/a",
  "relative-json-pointer": "0",
  byte: "",
};

const MAX_DEPTH = 16;

/** An integer or number inside bounds, as close to 0 as the bounds allow. */
function numberInside(s: JsonSchemaObject, integer: boolean): number | undefined {
  const b = numericBounds(s);
  const isInt = integer || b.integerFormat;
  let lo = b.lo, hi = b.hi;
  if (isInt) {
    lo = b.loExclusive ? Math.floor(lo) + 1 : Math.ceil(lo);
    hi = b.hiExclusive ? Math.ceil(hi) - 1 : Math.floor(hi);
  }
  let v = Math.min(Math.max(0, lo), hi);
  if (!isInt && ((b.loExclusive && v === lo) || (b.hiExclusive && v === hi))) {
    v = Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : v === lo ? lo + 1 : hi - 1;
  }
  const m = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (m !== undefined) v = Math.ceil(v / m) * m;
  return v >= lo && v <= hi ? v : undefined;
}

/** A string of the schema's format, or of its minimum length. */
export function stringInside(s: JsonSchemaObject): string {
  if (typeof s.format === "string" && FORMAT_SAMPLES[s.format] !== undefined) {
    return FORMAT_SAMPLES[s.format];
  }
  return "a".repeat(typeof s.minLength === "number" ? s.minLength : 0);
}

function synthesize(s: JsonSchemaObject, type: string, node: Node, depth: number): unknown {
  const first = (schema: JsonSchema) => samples({ schema, scope: node.scope }, depth + 1)[0];
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return false;
    case "integer":
    case "number":
      return numberInside(s, type === "integer");
    case "string":
      return stringInside(s);
    case "array": {
      const prefix = Array.isArray(s.prefixItems)
        ? s.prefixItems
        : Array.isArray(s.items)
        ? s.items
        : [];
      const rest = Array.isArray(s.prefixItems)
        ? s.items
        : Array.isArray(s.items)
        ? s.additionalItems
        : s.items;
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      const out: unknown[] = [];
      for (let i = 0; i < min; i++) {
        const item = first((i < prefix.length ? prefix[i] : rest ?? true) as JsonSchema);
        if (item === undefined) return undefined;
        out.push(item);
      }
      return out;
    }
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) {
        const schema = s.properties?.[key] ?? s.additionalProperties ?? true;
        const value = first(schema as JsonSchema);
        if (value === undefined) return undefined;
        out[key] = value;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * Up to three candidate values of a schema, the documented example first.
 * Empty when none can be built (a `false` schema, a reference that does not
 * resolve, an infinitely nested required field).
 */
export function samples(node: Node, depth = 0): unknown[] {
  if (depth > MAX_DEPTH) return [];
  // Examples beside a $ref describe the same value: look before following it.
  const own = isSchemaObject(node.schema) && Array.isArray(node.schema.examples)
    ? node.schema.examples
    : [];
  const followed = follow(node);
  if ("error" in followed) return [];
  const s = followed.schema;
  if (s === false) return [];
  if (s === true || !isSchemaObject(s)) return [null];
  const out: unknown[] = [];
  const add = (v: unknown) => {
    if (v !== undefined && out.length < 3 && !out.some((o) => Object.is(o, v))) out.push(v);
  };
  add(own[0]);
  if (Array.isArray(s.examples)) add(s.examples[0]);
  if (s.const !== undefined) add(s.const);
  if (Array.isArray(s.enum)) s.enum.slice(0, 2).forEach(add);
  const union = s.oneOf ?? s.anyOf;
  if (Array.isArray(union)) {
    for (const b of union) add(samples({ schema: b, scope: followed.scope }, depth + 1)[0]);
  } else if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    add(samples({ schema: s.allOf[0], scope: followed.scope }, depth + 1)[0]);
  }
  if (out.length > 0 && (s.const !== undefined || Array.isArray(s.enum))) return out;
  const types = Array.isArray(s.type)
    ? s.type.map(String)
    : typeof s.type === "string"
    ? [s.type]
    : Array.isArray(union) || Array.isArray(s.allOf)
    ? []
    : [s.properties !== undefined || s.required !== undefined ? "object" : "null"];
  // A non-null type first: `null` says little about an Option<T>.
  types.sort((a, b) => Number(a === "null") - Number(b === "null"));
  for (const t of types) add(synthesize(s, t, followed, depth));
  return out;
}
