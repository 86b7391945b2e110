/**
 * MCP tool schemas from OpenRPC methods. MCP wants one JSON Schema object
 * (`"type": "object"` at the top) for a tool's input and one for its
 * structured output; a Sausage method has a list of params and a result,
 * each with its own schema, whose `$ref`s name schemas embedded in it
 * (`#/$defs/Added`, as schemars writes them) or in the document
 * (`#/components/schemas/Added`).
 *
 * Every schema a `$ref` reaches (looked up as `rpc/schema_scope.ts` does for
 * the compatibility check) is carried into the `$defs` at the top of the new
 * schema, under its own name (`Added`, or `Added_2` when two different
 * schemas share a name), and the `$ref` is rewritten to `#/$defs/<name>`;
 * recursive types stay recursive. A `$ref` that names nothing becomes `{}`.
 *
 * The output: a result whose schema is an object is the structured content
 * itself; any other result (`Vec<String>`, a number, `null`) is wrapped as
 * `{"result": <value>}`.
 *
 * @module
 */

import type { JsonSchema } from "../rpc/json_schema.ts";
import type { MethodObject, OpenRpcDocument } from "../rpc/openrpc.ts";
import {
  enter,
  followAsFarAsPossible,
  isSchemaObject,
  type Node,
  resolveRef,
  Scope,
} from "../rpc/schema_scope.ts";
import {
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_VALUE_KEYWORDS,
} from "../rpc/schema_keywords.ts";

/** An object schema, as MCP's `inputSchema` and `outputSchema` need. */
export interface ObjectSchema {
  type: "object";
  /** Other keywords. */
  [keyword: string]: unknown;
}

/** The key that wraps a result that is not an object. */
export const RESULT_KEY = "result";

/** Collects the named schemas of one new schema while its `$ref`s are rewritten. */
class Carrier {
  /** The new `$defs`. */
  readonly defs: Record<string, JsonSchema> = {};
  private names = new Map<JsonSchema, string>();

  /** A copy of the schema at `node` whose references all point into `defs`. */
  carry(node: Node): JsonSchema {
    const entered = enter(node);
    const s = entered.schema;
    if (!isSchemaObject(s)) return s;
    const out: Record<string, unknown> = {};
    const sub = (v: unknown) => this.carry({ schema: v as JsonSchema, scope: entered.scope });
    for (const [key, value] of Object.entries(s)) {
      if (key === "$defs" || key === "definitions") continue;
      if (key === "$ref" && typeof value === "string") {
        const ref = this.ref(value, entered.scope);
        if (ref) out.$ref = ref; // a reference that names nothing: anything goes
      } else if (SCHEMA_MAP_KEYWORDS.has(key) && isSchemaObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
      } else if (
        (SCHEMA_LIST_KEYWORDS.has(key) || SCHEMA_VALUE_KEYWORDS.has(key)) && Array.isArray(value)
      ) {
        out[key] = value.map(sub);
      } else if (SCHEMA_VALUE_KEYWORDS.has(key)) {
        out[key] = sub(value);
      } else out[key] = value; // data (enum, const, default, examples) and annotations
    }
    return out as JsonSchema;
  }

  /** The new reference for `ref`, carrying its target into `defs` once. */
  private ref(ref: string, scope: Scope): string {
    const target = resolveRef(ref, scope);
    if ("error" in target) return "";
    const known = this.names.get(target.schema);
    if (known) return `#/$defs/${known}`;
    const base = ref.slice(ref.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let i = 2; Object.hasOwn(this.defs, name); i++) name = `${base}_${i}`;
    this.names.set(target.schema, name);
    this.defs[name] = true; // reserved while it is carried (recursive types)
    this.defs[name] = this.carry(target);
    return `#/$defs/${name}`;
  }
}

/** The named schemas of a document (`components.schemas`), as the outermost scope. */
function documentScope(doc: OpenRpcDocument | undefined): Scope {
  return new Scope(doc?.components?.schemas ?? {});
}

/** A copy of `schema` without its `$defs` key when there are none. */
function withDefs(schema: Record<string, unknown>, defs: Record<string, JsonSchema>): ObjectSchema {
  const out = { ...schema } as ObjectSchema;
  if (Object.keys(defs).length) out.$defs = defs;
  return out;
}

/** The params of a method as one object schema. */
export function inputSchema(method: MethodObject, doc?: OpenRpcDocument): ObjectSchema {
  const carrier = new Carrier();
  const scope = documentScope(doc);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of method.params ?? []) {
    let schema = carrier.carry({ schema: p.schema ?? true, scope });
    if (p.description && isSchemaObject(schema) && schema.description === undefined) {
      schema = { description: p.description, ...schema };
    } else if (p.description && schema === true) schema = { description: p.description };
    properties[p.name] = schema;
    if (p.required) required.push(p.name);
  }
  const params = (method as { "x-sausage-params"?: { description?: string } })["x-sausage-params"];
  const top: Record<string, unknown> = { type: "object", properties };
  if (params?.description) top.description = params.description;
  if (required.length) top.required = required;
  return withDefs(top, carrier.defs);
}

/** The structured output of a method, or undefined when it has no result schema. */
export function outputSchema(
  method: MethodObject,
  doc?: OpenRpcDocument,
): ObjectSchema | undefined {
  if (!method.result?.schema) return undefined;
  const carrier = new Carrier();
  const node: Node = { schema: method.result.schema, scope: documentScope(doc) };
  const top = followAsFarAsPossible(node);
  if (isSchemaObject(top.schema) && top.schema.type === "object") {
    const carried = carrier.carry(top) as Record<string, unknown>;
    return withDefs(carried, carrier.defs);
  }
  const result = carrier.carry(node);
  const wrapped = {
    type: "object",
    properties: { [RESULT_KEY]: result },
    required: [RESULT_KEY],
  };
  return withDefs(wrapped, carrier.defs);
}

/** True when `outputSchema` wraps this method's result as `{"result": …}`. */
export function wrapsResult(method: MethodObject, doc?: OpenRpcDocument): boolean {
  if (!method.result?.schema) return false;
  const top = followAsFarAsPossible({ schema: method.result.schema, scope: documentScope(doc) });
  return !(isSchemaObject(top.schema) && top.schema.type === "object");
}
