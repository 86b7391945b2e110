/**
 * The JSON Schema keywords whose values hold schemas (draft-07 and
 * 2020-12): the one list that walks of a schema's subschemas use
 * (`rpc/schema_scope.ts`, `mcp/tool_schema.ts`). `$defs` and `definitions`
 * hold named schemas too; each walk decides about them itself.
 *
 * @module
 */

/** Keywords whose value is one schema (`items` of draft-07 may also be a list of schemas). */
export const SCHEMA_VALUE_KEYWORDS: ReadonlySet<string> = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** Keywords whose value is a list of schemas. */
export const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
]);

/** Keywords whose value maps names to schemas (besides `$defs` and `definitions`). */
export const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "dependentSchemas",
]);
