/**
 * Where a `$ref` leads. A schema in an OpenRPC document names other schemas
 * with `#/components/schemas/Name` (the document's named schemas), or with
 * `#/$defs/Name` and `#/definitions/Name` (schemars embeds these in a
 * schema). This module owns that lookup, for the compatibility check and for
 * the validator, so both always agree on what a name means.
 *
 * The rule: a reference names a schema by its last segment. The lookup
 * starts at the innermost schema with embedded `$defs` (or `definitions`)
 * and goes outwards to the defs of the document. A reference that points
 * deeper (`#/$defs/A/properties/b`) or outside the document does not resolve.
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject, SchemaDefs } from "./json_schema.ts";
import {
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_VALUE_KEYWORDS,
} from "./schema_keywords.ts";

/** A level of named schemas: the document's, or those embedded in a schema. */
export class Scope {
  /** Creates a level on top of `parent`. */
  constructor(readonly defs: SchemaDefs, readonly parent?: Scope) {}

  /** The schema called `name` here or further out, with the scope it was defined in. */
  lookup(name: string): Node | undefined {
    if (Object.hasOwn(this.defs, name)) return { schema: this.defs[name], scope: this };
    return this.parent?.lookup(name);
  }
}

/** A schema together with the scope its references resolve in. */
export interface Node {
  schema: JsonSchema;
  scope: Scope;
}

/** True for a JSON Schema object (not `true`, `false`, or a non-schema). */
export function isSchemaObject(s: unknown): s is JsonSchemaObject {
  return typeof s === "object" && s !== null && !Array.isArray(s);
}

/** The node of a schema at the top of a document whose named schemas are `defs`. */
export function rootNode(schema: JsonSchema, defs: SchemaDefs): Node {
  return enter({ schema, scope: new Scope(defs) });
}

/** Opens the `$defs`/`definitions` that a schema embeds, so that its references see them. */
export function enter(node: Node): Node {
  const s = node.schema;
  if (!isSchemaObject(s)) return node;
  const embedded = { ...(s.definitions ?? {}), ...(s.$defs ?? {}) };
  if (Object.keys(embedded).length === 0) return node;
  return { schema: s, scope: new Scope(embedded, node.scope) };
}

const REF_FORMS = [
  /^#\/\$defs\/([^/]+)$/,
  /^#\/definitions\/([^/]+)$/,
  /^#\/components\/schemas\/([^/]+)$/,
];

/** The name that a reference gives, or undefined for a form we do not follow. */
export function refName(ref: string): string | undefined {
  for (const form of REF_FORMS) {
    const m = form.exec(ref);
    if (m) return decodeURIComponent(m[1]).replaceAll("~1", "/").replaceAll("~0", "~");
  }
  return undefined;
}

/** Follows one `$ref` from a scope. Returns the target node, or an explanation. */
export function resolveRef(ref: string, scope: Scope): Node | { error: string } {
  const name = refName(ref);
  if (name === undefined) {
    return { error: `$ref "${ref}" is not of the form #/$defs/Name or #/components/schemas/Name` };
  }
  const target = scope.lookup(name);
  if (!target) return { error: `$ref "${ref}" names no schema` };
  return enter(target);
}

/**
 * Follows `$ref`s until a schema without one, ignoring keywords beside a
 * `$ref` (callers that must honour them check for them first). Returns an
 * explanation when a reference does not resolve or the references loop.
 */
export function follow(node: Node): Node | { error: string } {
  const end = walkRefs(node);
  return end.error === undefined ? end.reached : { error: end.error };
}

/**
 * Follows `$ref`s as {@linkcode follow} does, but stops at the last schema
 * reached when a reference does not resolve or the references loop.
 */
export function followAsFarAsPossible(node: Node): Node {
  return walkRefs(node).reached;
}

/** The schema reached by following `$ref`s, and why it stopped early if it did. */
function walkRefs(node: Node): { reached: Node; error?: string } {
  let current = enter(node);
  for (let hops = 0; hops < 64; hops++) {
    const s = current.schema;
    if (!isSchemaObject(s) || typeof s.$ref !== "string") return { reached: current };
    const next = resolveRef(s.$ref, current.scope);
    if ("error" in next) return { reached: current, error: next.error };
    current = next;
  }
  return { reached: current, error: "$ref leads to $ref 64 times in a row" };
}

/** Every `$ref` under a schema that does not resolve. Does not follow references. */
export function findUnresolvedRefs(schema: JsonSchema, defs: SchemaDefs): string[] {
  const found: string[] = [];
  const walk = (node: Node): void => {
    const entered = enter(node);
    const s = entered.schema;
    if (!isSchemaObject(s)) return;
    if (typeof s.$ref === "string" && "error" in resolveRef(s.$ref, entered.scope)) {
      found.push(s.$ref);
    }
    for (const child of childSchemas(s, true)) walk({ schema: child, scope: entered.scope });
  };
  walk({ schema, scope: new Scope(defs) });
  return [...new Set(found)];
}

/** The direct subschemas of a schema; with `withDefs`, also the embedded named schemas. */
function childSchemas(s: JsonSchemaObject, withDefs = false): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (v: unknown) => {
    if (typeof v === "boolean" || isSchemaObject(v)) out.push(v as JsonSchema);
  };
  for (const k of SCHEMA_VALUE_KEYWORDS) {
    const v = s[k];
    if (k === "items" && Array.isArray(v)) v.forEach(add);
    else add(v);
  }
  for (const k of SCHEMA_LIST_KEYWORDS) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach(add);
  const maps = withDefs
    ? [...SCHEMA_MAP_KEYWORDS, "$defs", "definitions"]
    : [...SCHEMA_MAP_KEYWORDS];
  for (const k of maps) {
    if (isSchemaObject(s[k])) Object.values(s[k] as object).forEach(add);
  }
  return out;
}

/**
 * A self-contained copy of a node for a standard validator (JSON Schema
 * 2020-12): every reachable named schema under a unique name in the root's
 * `$defs`, every `$ref` rewritten to it, draft-07 tuples (`items: [...]`,
 * `additionalItems`) rewritten to `prefixItems`/`items`, and `$schema`/`$id`
 * dropped. Throws when a reference does not resolve.
 */
export function bundle(node: Node): JsonSchema {
  const names = new Map<object, string>();
  const used = new Set<string>();
  const defs: Record<string, JsonSchema> = {};

  const nameFor = (target: Node, hint: string): string => {
    const key = target.schema as object;
    const known = names.get(key);
    if (known !== undefined) return known;
    const base = hint.replace(/[^A-Za-z0-9_.-]/g, "_") || "def";
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
    used.add(name);
    names.set(key, name);
    defs[name] = true; // placeholder while the definition is rewritten (it may refer to itself)
    defs[name] = rewrite(target);
    return name;
  };

  const rewrite = (raw: Node): JsonSchema => {
    const node = enter(raw);
    const s = node.schema;
    if (!isSchemaObject(s)) return s;
    const out: Record<string, unknown> = {};
    const sub = (v: unknown): unknown =>
      typeof v === "boolean" || isSchemaObject(v) ? rewrite({ schema: v, scope: node.scope }) : v;
    for (const [k, v] of Object.entries(s)) {
      if (k === "$defs" || k === "definitions" || k === "$schema" || k === "$id") continue;
      if (k === "$ref" && typeof v === "string") {
        const target = resolveRef(v, node.scope);
        if ("error" in target) throw new Error(target.error);
        out.$ref = `#/$defs/${nameFor(target, refName(v) ?? "def")}`;
      } else if (k === "items" && Array.isArray(v)) {
        out.prefixItems = v.map(sub);
        if (s.additionalItems !== undefined) out.items = sub(s.additionalItems);
      } else if (k === "additionalItems") {
        if (!Array.isArray(s.items)) continue; // ignored without a tuple, as in draft-07
      } else if (SCHEMA_VALUE_KEYWORDS.has(k)) {
        out[k] = sub(v);
      } else if (SCHEMA_LIST_KEYWORDS.has(k) && Array.isArray(v)) {
        out[k] = v.map(sub);
      } else if (SCHEMA_MAP_KEYWORDS.has(k) && isSchemaObject(v)) {
        out[k] = Object.fromEntries(Object.entries(v).map(([n, c]) => [n, sub(c)]));
      } else {
        out[k] = v;
      }
    }
    return out as JsonSchemaObject;
  };

  const root = rewrite(node);
  if (Object.keys(defs).length === 0) return root;
  return isSchemaObject(root) ? { ...root, $defs: defs } : { allOf: [root], $defs: defs };
}
