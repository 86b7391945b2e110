/**
 * Short descriptions of schemas and values for people: `string`,
 * `integer 0..65535`, `Added`, `string | null`, `{"text": "milk"}`. The
 * activation errors and the check's reasons are written with these.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import { enter, isSchemaObject, type Node, refName } from "./schema_scope.ts";
import { INTEGER_FORMATS } from "./schema_validator.ts";

/** JSON with a space after `:` and `,`, as in the messages: `{"text": "milk", "n": [1, 2]}`. */
export function formatJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatJson).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${formatJson(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Numbers beyond 2^53 are not exact here; a bound there is left out of descriptions. */
const EXACT = Number.MAX_SAFE_INTEGER;

/** The inclusive-or-exclusive bounds of a numeric schema, including an integer format's range. */
export interface NumericBounds {
  lo: number;
  loExclusive: boolean;
  hi: number;
  hiExclusive: boolean;
  /** True when the format makes the value an integer (`uint16`). */
  integerFormat: boolean;
}

/** The bounds that `minimum`, `maximum`, the exclusive forms and an integer format set. */
export function numericBounds(s: JsonSchemaObject): NumericBounds {
  const b: NumericBounds = {
    lo: -Infinity,
    loExclusive: false,
    hi: Infinity,
    hiExclusive: false,
    integerFormat: false,
  };
  const raise = (v: number, exclusive: boolean) => {
    if (v > b.lo || (v === b.lo && exclusive)) [b.lo, b.loExclusive] = [v, exclusive];
  };
  const lower = (v: number, exclusive: boolean) => {
    if (v < b.hi || (v === b.hi && exclusive)) [b.hi, b.hiExclusive] = [v, exclusive];
  };
  if (typeof s.minimum === "number") raise(s.minimum, s.exclusiveMinimum === true);
  if (typeof s.maximum === "number") lower(s.maximum, s.exclusiveMaximum === true);
  if (typeof s.exclusiveMinimum === "number") raise(s.exclusiveMinimum, true);
  if (typeof s.exclusiveMaximum === "number") lower(s.exclusiveMaximum, true);
  const range = typeof s.format === "string" ? INTEGER_FORMATS[s.format] : undefined;
  if (range) {
    raise(range[0], false);
    lower(range[1], false);
    b.integerFormat = true;
  }
  return b;
}

function describeRange(b: NumericBounds, format: unknown): string {
  const lo = Number.isFinite(b.lo) && Math.abs(b.lo) <= EXACT ? b.lo : undefined;
  const hi = Number.isFinite(b.hi) && Math.abs(b.hi) <= EXACT ? b.hi : undefined;
  // A 64-bit range is clearer by its format's name than by inexact bounds.
  const hidden = (lo === undefined && Number.isFinite(b.lo)) ||
    (hi === undefined && Number.isFinite(b.hi));
  const suffix = hidden && typeof format === "string" ? ` (${format})` : "";
  return describeBounds(b, lo, hi) + suffix;
}

function describeBounds(b: NumericBounds, lo?: number, hi?: number): string {
  if (lo !== undefined && hi !== undefined && !b.loExclusive && !b.hiExclusive) {
    return lo === hi ? ` ${lo}` : ` ${lo}..${hi}`;
  }
  const parts = [];
  if (lo !== undefined) parts.push(`${b.loExclusive ? ">" : ">="} ${lo}`);
  if (hi !== undefined) parts.push(`${b.hiExclusive ? "<" : "<="} ${hi}`);
  return parts.length ? ` ${parts.join(" and ")}` : "";
}

function describeType(s: JsonSchemaObject, type: string, node: Node, depth: number): string {
  const child = (schema: JsonSchema) => describe({ schema, scope: node.scope }, depth - 1);
  switch (type) {
    case "integer":
    case "number": {
      const b = numericBounds(s);
      const kind = type === "number" && !b.integerFormat ? "number" : "integer";
      const multiple = typeof s.multipleOf === "number" ? ` multiple of ${s.multipleOf}` : "";
      return `${kind}${describeRange(b, s.format)}${multiple}`;
    }
    case "string": {
      let out = "string";
      if (typeof s.format === "string") out += ` (${s.format})`;
      const min = typeof s.minLength === "number" ? s.minLength : 0;
      const max = typeof s.maxLength === "number" ? s.maxLength : undefined;
      if (max !== undefined) out += min === max ? ` of length ${min}` : ` of length ${min}..${max}`;
      else if (min > 0) out += ` of length >= ${min}`;
      if (typeof s.pattern === "string") out += ` matching /${s.pattern}/`;
      return out;
    }
    case "array": {
      const tuple = Array.isArray(s.prefixItems)
        ? s.prefixItems
        : Array.isArray(s.items)
        ? s.items
        : undefined;
      if (tuple) return `[${tuple.map(child).join(", ")}]`;
      return s.items === undefined ? "array" : `array of ${wrap(child(s.items as JsonSchema))}`;
    }
    case "object": {
      if (typeof s.title === "string") return s.title;
      const props = Object.entries(s.properties ?? {});
      const extra = s.additionalProperties;
      if (props.length === 0 && extra !== undefined && extra !== false) {
        return `map of ${wrap(child(extra))}`;
      }
      if (props.length === 0 && extra === false) return "{}";
      if (props.length === 0 || depth <= 0) return "object";
      const required = new Set(s.required ?? []);
      const shown = props.slice(0, 6).map(([k, v]) =>
        `${k}${required.has(k) ? "" : "?"}: ${child(v)}`
      );
      return `{${shown.join(", ")}${props.length > 6 ? ", …" : ""}}`;
    }
    default:
      return type;
  }
}

/** Parentheses around a union inside `array of …`. */
function wrap(text: string): string {
  return text.includes(" | ") ? `(${text})` : text;
}

/**
 * A short description of a schema: the name of a `$ref`, the values of an
 * enum, the type with its range, length, format, or fields. `depth` limits
 * how many levels of fields are spelt out.
 */
export function describe(node: Node, depth = 2): string {
  const entered = enter(node);
  const s = entered.schema;
  if (s === true) return "any value";
  if (s === false) return "no value";
  if (!isSchemaObject(s)) return "a schema";
  if (typeof s.$ref === "string") return refName(s.$ref) ?? s.$ref;
  if (s.const !== undefined) return formatJson(s.const);
  if (Array.isArray(s.enum)) {
    const shown = s.enum.slice(0, 6).map(formatJson).join(" | ");
    return s.enum.length > 6 ? `${shown} | …` : shown;
  }
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) {
    const parts = union.map((b) => describe({ schema: b, scope: entered.scope }, depth));
    return [...new Set(parts)].join(" | ");
  }
  if (Array.isArray(s.allOf) && s.allOf.length === 1) {
    return describe({ schema: s.allOf[0], scope: entered.scope }, depth);
  }
  if (Array.isArray(s.type)) {
    return s.type.map((t) => describeType(s, String(t), entered, depth)).join(" | ");
  }
  if (typeof s.type === "string") return describeType(s, s.type, entered, depth);
  if (s.properties !== undefined) return describeType(s, "object", entered, depth);
  return "any value";
}
