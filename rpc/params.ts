/**
 * The checks of a method's params that every core method shares: a required
 * string, an optional string, number or boolean. A param of the wrong type is
 * error -32602 naming it (`"path" must be a string`).
 *
 * @module
 */

import { HostError } from "./errors.ts";
import type { JsonObject } from "./message.ts";
import { approximateNumber, isExactNumber } from "./exact_json.ts";

/** The JSON types an optional param can be checked for. */
export interface ParamTypes {
  /** A JSON string. */
  string: string;
  /** A JSON number. */
  number: number;
  /** `true` or `false`. */
  boolean: boolean;
}

/** A required string param, or -32602. */
export function stringParam(params: JsonObject, name: string): string {
  const v = params[name];
  if (typeof v !== "string") {
    throw new HostError("invalid-params", `"${name}" must be a string`);
  }
  return v;
}

/** An optional param of a type (missing or null: `undefined`), or -32602. */
export function optionalParam<K extends keyof ParamTypes>(
  params: JsonObject,
  name: string,
  type: K,
): ParamTypes[K] | undefined {
  const v = params[name];
  if (v === undefined || v === null) return undefined;
  // A number kept as its text (`exact_json.ts`): the core reads it as a double.
  if (type === "number" && isExactNumber(v)) return approximateNumber(v) as ParamTypes[K];
  // deno-lint-ignore valid-typeof
  if (typeof v !== type) throw new HostError("invalid-params", `"${name}" must be a ${type}`);
  return v as ParamTypes[K];
}
