/**
 * The schema validator: does a JSON value satisfy a schema of a plugin's
 * document? Backed by ajv (JSON Schema 2020-12, draft-07 tuples rewritten),
 * with the formats that Rust types produce:
 *
 * - string formats (`date-time`, `uuid`, `uri`, `ipv4`, …) from `ajv-formats`,
 *   and `ip` (`std::net::IpAddr`: an IPv4 or IPv6 address), asserted, because the Rust types behind them (`chrono`, `uuid`, `url`,
 *   `std::net`) reject other strings;
 * - integer formats (`uint8` … `uint64`, `int8` … `int64`) asserted as
 *   their ranges; `uint` and `int` (`usize`, `isize`) as 32 bits, because
 *   every plugin is `wasm32`;
 * - `float` and `double` accept any number; unknown formats accept anything.
 *
 * The compatibility check uses it to test the values it enumerates and the
 * counterexamples it reports, so its notion of "valid" is this one.
 *
 * @module
 */

import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { isIP } from "node:net";
import type { JsonSchema, SchemaDefs } from "./json_schema.ts";
import { bundle, type Node, rootNode } from "./schema_scope.ts";
import { approximate, holdsBigInteger } from "./exact_json.ts";

/** Tests one value. */
export type SchemaValidator = (value: unknown) => boolean;

/**
 * The inclusive range of each integer format; `uint`/`int` are 32 bits on
 * wasm32. The 64-bit maxima are the largest doubles below the true maxima,
 * which are not doubles themselves.
 */
export const INTEGER_FORMATS: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  int16: [-32768, 32767],
  int32: [-2147483648, 2147483647],
  int64: [-(2 ** 63), 2 ** 63 - 1024],
  int: [-2147483648, 2147483647],
  uint8: [0, 255],
  uint16: [0, 65535],
  uint32: [0, 4294967295],
  uint64: [0, 2 ** 64 - 2048],
  uint: [0, 4294967295],
};

let ajv: Ajv2020 | undefined;

function instance(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  // A CommonJS module: Deno's default import is its `module.exports` (typed as
  // the module), whose `default` is the plugin function.
  ajvFormats.default(ajv);
  for (const [name, [lo, hi]] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(name, {
      type: "number",
      validate: (n: number) => Number.isInteger(n) && n >= lo && n <= hi,
    });
  }
  for (const name of ["float", "double"]) {
    ajv.addFormat(name, {
      type: "number",
      validate: () => true,
    });
  }
  ajv.addFormat("ip", { type: "string", validate: (s: string) => isIP(s) !== 0 });
  return ajv;
}

const cache = new WeakMap<object, WeakMap<object, SchemaValidator>>();

/**
 * Compiles the validator of a node (a schema with the scope its references
 * resolve in). Throws an Error that says what is wrong when the schema
 * cannot be compiled, e.g. a `$ref` that names no schema.
 */
export function compileNode(node: Node): SchemaValidator {
  const { schema, scope } = node;
  if (typeof schema === "boolean") return () => schema;
  let perScope = cache.get(schema);
  const hit = perScope?.get(scope);
  if (hit) return hit;
  const bundled = bundle(node);
  const a = instance();
  const validate = a.compile(bundled as object);
  a.removeSchema(bundled as object); // keep ajv's cache from growing with every check
  // A big integer (`exact_json.ts`) is checked as the largest double not above it.
  const validator: SchemaValidator = (value) =>
    validate(holdsBigInteger(value) ? approximate(value) : value) === true;
  if (!perScope) cache.set(schema, perScope = new WeakMap());
  perScope.set(scope, validator);
  return validator;
}

/** Compiles the validator of a schema whose `$ref`s name schemas in `defs`. Throws like `compileNode`. */
export function compileSchema(schema: JsonSchema, defs: SchemaDefs): SchemaValidator {
  return compileNode(rootNode(schema, defs));
}

/** Like `compileNode`, but undefined instead of an error: for callers that only try. */
export function tryCompileNode(node: Node): SchemaValidator | undefined {
  try {
    return compileNode(node);
  } catch {
    return undefined;
  }
}
