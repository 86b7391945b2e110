/**
 * The JSON Schema types that plugin documents carry (params, results and
 * named schemas), shared by the OpenRPC documents, the schema scope, the
 * compatibility checks and the validator.
 *
 * @module
 */

/** A JSON Schema: `true`, `false`, or an object of keywords. */
export type JsonSchema = boolean | JsonSchemaObject;

/** A JSON Schema object. Only the keywords Rust types produce are named. */
export interface JsonSchemaObject {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  type?: string | string[];
  title?: string;
  description?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  examples?: unknown[];
  /** Any other keyword. */
  [keyword: string]: unknown;
}

/** Named schemas, as in `components.schemas` or `$defs`. */
export type SchemaDefs = Record<string, JsonSchema>;
