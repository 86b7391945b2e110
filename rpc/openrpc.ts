/**
 * The OpenRPC 1.2.6 documents that plugins answer to `rpc.discover`
 * (section 10.1), with Sausage's two extensions, and their validation
 * against the official OpenRPC meta-schema.
 *
 * The extensions:
 *
 * - `x-sausage-endpoints`: `{<interface>: {methods: [...]}}`, the endpoint
 *   interfaces of the plugin (section 6).
 * - `x-sausage-imports`: `{<provider>: ImportDescription}`, what the plugin
 *   uses of each provider: the main-interface `methods`, the `endpoints` it
 *   connects to (`{<interface>: {methods: [...]}}`), and the named schemas
 *   that those methods reference in `components.schemas`. An import entry
 *   is a trimmed copy of the provider's own document, so a `$ref` in an
 *   imported method resolves against the entry's `components.schemas` (or a
 *   `$defs` embedded in the schema), never against the consumer's own types.
 *
 * @module
 */

import { approximate } from "./exact_json.ts";
import { Ajv } from "ajv";
import * as openrpcMetaSchemaModule from "@open-rpc/meta-schema";
import jsonSchemaMetaSchema from "@json-schema-tools/meta-schema/schema.json" with {
  type: "json",
};
import type { JsonSchema, SchemaDefs } from "./json_schema.ts";
import { findUnresolvedRefs } from "./schema_scope.ts";

/** A param or a result: a name and a schema (an OpenRPC content descriptor). */
export interface ContentDescriptor {
  name: string;
  summary?: string;
  description?: string;
  /** Params only: whether the caller must send it. OpenRPC's default is false. */
  required?: boolean;
  schema: JsonSchema;
  deprecated?: boolean;
}

/** One documented example call of a method. */
export interface ExamplePairing {
  name: string;
  summary?: string;
  description?: string;
  params: { name: string; value: unknown }[];
  result?: { name: string; value: unknown };
}

/** One method of an interface. Our plugins always use `paramStructure: "by-name"`. */
export interface MethodObject {
  name: string;
  summary?: string;
  description?: string;
  paramStructure?: "by-name" | "by-position" | "either";
  params: ContentDescriptor[];
  /** Absent for a method that answers nothing useful. */
  result?: ContentDescriptor;
  examples?: ExamplePairing[];
  deprecated?: boolean;
}

/** An interface: the methods of an endpoint, or the imported methods of one endpoint. */
export interface InterfaceDescription {
  methods: MethodObject[];
}

/** What a consumer uses of one provider: the value of `x-sausage-imports.<provider>`. */
export interface ImportDescription {
  /** The provider's main-interface methods that the consumer calls. */
  methods: MethodObject[];
  /** The provider's endpoint interfaces that the consumer connects to. */
  endpoints?: Record<string, InterfaceDescription>;
  /** The named schemas that the imported methods reference. */
  components?: { schemas?: SchemaDefs };
}

/** The `rpc.discover` document of a plugin. */
export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: MethodObject[];
  components?: { schemas?: SchemaDefs };
  "x-sausage-endpoints"?: Record<string, InterfaceDescription>;
  "x-sausage-imports"?: Record<string, ImportDescription>;
  /** Other extensions. */
  [extension: `x-${string}`]: unknown;
}

/** The named schemas of a document or of an import entry (`components.schemas`). */
export function schemaDefs(owner: { components?: { schemas?: SchemaDefs } }): SchemaDefs {
  return owner.components?.schemas ?? {};
}

/** The endpoint interfaces of a document (`x-sausage-endpoints`), `{}` when it has none. */
export function endpointsOf(doc: OpenRpcDocument): Record<string, InterfaceDescription> {
  return doc["x-sausage-endpoints"] ?? {};
}

/** The imports of a document (`x-sausage-imports`), `{}` when it has none. */
export function importsOf(doc: OpenRpcDocument): Record<string, ImportDescription> {
  return doc["x-sausage-imports"] ?? {};
}

const META_SCHEMA_ID = "https://meta.open-rpc.org/";

/** The shape of our two extensions; the meta-schema accepts any `x-` value. */
const extensionsSchema = {
  $id: "https://sausage.invalid/openrpc-extensions",
  type: "object",
  properties: {
    "x-sausage-endpoints": {
      type: "object",
      additionalProperties: { $ref: "#/$defs/interface" },
    },
    "x-sausage-imports": {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["methods"],
        properties: {
          methods: { $ref: "#/$defs/methods" },
          endpoints: { type: "object", additionalProperties: { $ref: "#/$defs/interface" } },
          components: { $ref: `${META_SCHEMA_ID}#/properties/components` },
        },
      },
    },
  },
  $defs: {
    interface: {
      type: "object",
      required: ["methods"],
      properties: { methods: { $ref: "#/$defs/methods" } },
    },
    methods: {
      type: "array",
      items: { $ref: `${META_SCHEMA_ID}#/definitions/methodObject` },
    },
  },
};

type Validate = ((doc: unknown) => boolean) & {
  errors?:
    | {
      instancePath: string;
      schemaPath: string;
      keyword: string;
      message?: string;
      params?: Record<string, unknown>;
    }[]
    | null;
};

interface Validators {
  /** The official meta-schema: it decides whether a document is valid. */
  official: Validate;
  /** The same without the `$ref` alternatives: its errors say what is wrong, without the noise. */
  explain: Validate;
  extensions: Validate;
}

let validators: Validators | undefined;

const REFERENCE = "#/definitions/referenceObject";

/**
 * A copy of the meta-schema in which "X or a reference object" is just X.
 * Every error of a bad method otherwise comes twice: once for the method,
 * and once for the reference object that it also is not.
 */
function withoutReferences(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutReferences);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = withoutReferences(v);
  const oneOf = out.oneOf;
  if (Array.isArray(oneOf) && oneOf.some((b) => (b as { $ref?: string })?.$ref === REFERENCE)) {
    delete out.oneOf;
    out.allOf = oneOf.filter((b) => (b as { $ref?: string })?.$ref !== REFERENCE);
  }
  return out;
}

/**
 * The official OpenRPC meta-schema: the package's `openrpcDocument` value,
 * which its type declarations leave out.
 */
function officialMetaSchema(): object {
  const module: object = openrpcMetaSchemaModule;
  if (
    "openrpcDocument" in module && typeof module.openrpcDocument === "object" &&
    module.openrpcDocument !== null
  ) return module.openrpcDocument;
  throw new Error(
    "@open-rpc/meta-schema has no openrpcDocument: see its pinned version in deno.json",
  );
}

/** Compiles the meta-schema once. Formats (`uri`) are not asserted: they are hints here. */
function compileValidators(): Validators {
  if (validators) return validators;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  // The OpenRPC meta-schema refers to its JSON Schema meta-schema both with
  // and without the trailing slash of the id.
  ajv.addMetaSchema(jsonSchemaMetaSchema);
  ajv.addMetaSchema({ ...jsonSchemaMetaSchema, $id: "https://meta.json-schema.tools" });
  const official = officialMetaSchema();
  ajv.addSchema(official);
  validators = {
    official: ajv.getSchema(META_SCHEMA_ID) as Validate,
    explain: ajv.compile({
      ...(withoutReferences(official) as object),
      $id: "https://sausage.invalid/openrpc-explained",
    }) as Validate,
    extensions: ajv.compile(extensionsSchema) as Validate,
  };
  return validators;
}

/** The errors as `<path>: <message>` lines, without the summaries of `oneOf`/`anyOf`. */
function describeErrors(validate: Validate): string[] {
  const errors = validate.errors ?? [];
  const specific = errors.filter((e) =>
    e.keyword !== "oneOf" && e.keyword !== "anyOf" &&
    // A schema is an object or a boolean: "must be boolean" only adds noise.
    !e.schemaPath.includes("JSONSchemaBoolean")
  );
  const lines = (specific.length > 0 ? specific : errors).map((e) =>
    `${e.instancePath === "" ? "/" : e.instancePath}: ${e.message ?? "is invalid"}${detail(e)}`
  );
  return [...new Set(lines)];
}

/** The name in question, for the errors whose message leaves it out. */
function detail(e: { keyword: string } & { params?: Record<string, unknown> }): string {
  const p = e.params ?? {};
  if (e.keyword === "additionalProperties") return ` ("${p.additionalProperty}")`;
  if (e.keyword === "enum") return `: ${JSON.stringify(p.allowedValues)}`;
  return "";
}

/** Problems that the meta-schema cannot see: duplicate names and `$ref`s that lead nowhere. */
function semanticProblems(doc: OpenRpcDocument): string[] {
  const problems: string[] = [];
  const checkInterface = (
    where: string,
    methods: MethodObject[],
    defs: SchemaDefs,
  ) => {
    const seen = new Set<string>();
    methods.forEach((m, i) => {
      const at = `${where}/methods/${i}`;
      if ("$ref" in m) {
        problems.push(`${at}: a reference object is not supported here; write the method out`);
        return;
      }
      if (seen.has(m.name)) problems.push(`${at}/name: duplicate method name "${m.name}"`);
      seen.add(m.name);
      const params = new Set<string>();
      (m.params ?? []).forEach((p, j) => {
        if ("$ref" in p) {
          problems.push(
            `${at}/params/${j}: a reference object is not supported here; write the param out`,
          );
          return;
        }
        if (params.has(p.name)) {
          problems.push(`${at}/params/${j}/name: duplicate param name "${p.name}"`);
        }
        params.add(p.name);
        for (const ref of findUnresolvedRefs(p.schema, defs)) {
          problems.push(`${at}/params/${j}/schema: $ref "${ref}" does not resolve`);
        }
      });
      if (m.result) {
        for (const ref of findUnresolvedRefs(m.result.schema, defs)) {
          problems.push(`${at}/result/schema: $ref "${ref}" does not resolve`);
        }
      }
    });
  };
  const defs = schemaDefs(doc);
  checkInterface("", doc.methods, defs);
  for (const [name, iface] of Object.entries(endpointsOf(doc))) {
    checkInterface(`/x-sausage-endpoints/${name}`, iface.methods, defs);
  }
  for (const [provider, imp] of Object.entries(importsOf(doc))) {
    const importDefs = schemaDefs(imp);
    checkInterface(`/x-sausage-imports/${provider}`, imp.methods, importDefs);
    for (const [name, iface] of Object.entries(imp.endpoints ?? {})) {
      checkInterface(`/x-sausage-imports/${provider}/endpoints/${name}`, iface.methods, importDefs);
    }
  }
  return problems;
}

/**
 * Validates an `rpc.discover` document against the OpenRPC meta-schema
 * (npm `@open-rpc/meta-schema`), the shape of our extensions, unique method
 * and param names, `$ref`s in schemas that resolve, and methods and params
 * written out (OpenRPC allows reference objects there; the interface check
 * does not follow them).
 *
 * Returns the problems, one line each, as `<JSON pointer>: <what is wrong>`;
 * an empty list means the document is valid. A bound beyond 2^53 (a `u64`'s
 * `maximum`, kept exactly by `exact_json.ts`) is a number here.
 */
export function validateOpenRpc(raw: unknown): string[] {
  const doc = approximate(raw);
  const { official, explain, extensions } = compileValidators();
  if (!official(doc)) {
    const problems = explain(doc) ? [] : describeErrors(explain);
    return problems.length > 0 ? problems : describeErrors(official);
  }
  if (!extensions(doc)) return describeErrors(extensions);
  return semanticProblems(doc as OpenRpcDocument);
}
