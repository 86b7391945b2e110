/**
 * The compatibility check of section 10.2 for one imported method: a
 * consumer's view of a method (from its `x-sausage-imports`) against the
 * provider's method.
 *
 * 1. The provider has the method.
 * 2. Every params object the consumer can send is valid for the provider.
 *    The consumer's params form a closed object (its generated client sends
 *    only the params it lists); the provider's form an open one (serde
 *    ignores params it does not know), unless the provider says otherwise.
 *    So a provider may add optional params, and drop params it ignores.
 * 3. Every result the provider can return is valid for the consumer's view.
 *    Objects in that view are open unless they say `additionalProperties:
 *    false`, so a provider may add result fields.
 *
 * The schema-level check is `isSubschema` (re-exported here).
 *
 * @module
 */

import type { JsonSchema, JsonSchemaObject, SchemaDefs } from "./json_schema.ts";
import type { MethodObject } from "./openrpc.ts";
import { follow, isSchemaObject, type Node, rootNode } from "./schema_scope.ts";
import { describe } from "./schema_describe.ts";
import { isSubschemaNode, type Verdict } from "./subschema.ts";

export { formatPath, isSubschema, isSubschemaNode } from "./subschema.ts";
export type { FailCode, Seg, SubschemaOptions, Verdict } from "./subschema.ts";

/** A method with the named schemas its `$ref`s resolve in. */
export interface MethodSide {
  method: MethodObject;
  defs: SchemaDefs;
}

/** How the messages name the parties, e.g. `agent`, `The new notes.add`, `The new notes`. */
export interface MethodLabels {
  /** The consumer: `agent`. */
  consumer: string;
  /** The provider's method, at the start of a sentence: `The new notes.add`. */
  method: string;
  /** The provider's interface, at the start of a sentence: `The new notes`. */
  iface: string;
}

/** Which rule a method breaks. */
export type MethodProblemKind = "no-method" | "params" | "result";

/** The answer for one method. */
export type MethodVerdict =
  | { ok: true }
  | {
    ok: false;
    kind: MethodProblemKind;
    /** Sentences for people, e.g. `The new notes.add has no param "text". It requires "body": string.` */
    reason: string;
    /** For `params`: a params object the consumer may send that the provider rejects. For `result`: a result the provider may return that the consumer rejects. */
    counterexample?: unknown;
    /** True when the check could not decide. */
    cannotProve: boolean;
  };

/**
 * The params of a method as one object schema (params are always by name):
 * a field per param, `required` from the params' flags, the method's
 * examples as `examples`. `closed` adds `additionalProperties: false`.
 */
function paramsSchema(method: MethodObject, closed: boolean): JsonSchemaObject {
  const params = method.params ?? [];
  const examples = (method.examples ?? []).map((e) =>
    Object.fromEntries((e.params ?? []).map((p) => [p.name, p.value]))
  );
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    required: params.filter((p) => p.required === true).map((p) => p.name),
    ...(closed ? { additionalProperties: false } : {}),
    ...(examples.length > 0 ? { examples } : {}),
  };
}

/** The result schema of a method (any value when it has none), with the method's example results. */
function resultSchema(method: MethodObject): JsonSchema {
  const schema = method.result?.schema ?? true;
  const examples = (method.examples ?? []).filter((e) => e.result !== undefined)
    .map((e) => e.result?.value);
  if (typeof schema === "boolean" || examples.length === 0) return schema;
  return { ...schema, examples: [...examples, ...(schema.examples ?? [])] };
}

/** `add(text: string, tag?: string) -> Added`: a method as its consumer sees it. */
export function signature(method: MethodObject, defs: SchemaDefs): string {
  const params = (method.params ?? []).map((p) =>
    `${p.name}${p.required ? "" : "?"}: ${describe(rootNode(p.schema, defs), 1)}`
  );
  const result = method.result ? ` -> ${describe(rootNode(method.result.schema, defs), 1)}` : "";
  return `${method.name}(${params.join(", ")})${result}`;
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(", ");

/** A label inside a sentence: `The new notes.add` becomes `the new notes.add`. */
const inner = (label: string) => label.charAt(0).toLowerCase() + label.slice(1);

/** The sentence for params that the provider does not accept. */
function paramsReason(
  v: Extract<Verdict, { ok: false }>,
  consumer: MethodSide,
  provider: MethodSide,
  L: MethodLabels,
): string {
  if (v.cannotProve) {
    return `The check cannot prove that ${
      inner(L.method)
    } accepts every params object that ${L.consumer} may send: ${v.reason}.`;
  }
  const cParams = consumer.method.params ?? [], pParams = provider.method.params ?? [];
  const cNames = cParams.map((p) => p.name), pNames = pParams.map((p) => p.name);
  const describeParam = (name: string, side: MethodSide) => {
    const p = (side.method.params ?? []).find((q) => q.name === name);
    return p ? describe(rootNode(p.schema, side.defs)) : "any value";
  };
  if (v.segments.length === 0 && v.code === "required" && v.key !== undefined) {
    if (cNames.includes(v.key)) {
      return `${L.method} requires "${v.key}", which ${L.consumer} may leave out.`;
    }
    const gone = cNames.filter((n) => !pNames.includes(n));
    const added = pParams.filter((p) => p.required && !cNames.includes(p.name))
      .map((p) => `"${p.name}": ${describeParam(p.name, provider)}`).join(", ");
    if (gone.length > 0) {
      const noun = gone.length === 1 ? "param" : "params";
      return `${L.method} has no ${noun} ${quoted(gone)}. It requires ${added}.`;
    }
    return `${L.method} requires the new param ${added}, which ${L.consumer} does not send.`;
  }
  if (v.segments.length === 0 && v.code === "additional" && v.key !== undefined) {
    return `${L.method} has no param "${v.key}", and rejects params it does not know.`;
  }
  const first = v.segments[0];
  if (first && "key" in first) {
    const k = first.key;
    if (v.segments.length === 1 && cNames.includes(k) && pNames.includes(k)) {
      const [cd, pd] = [describeParam(k, consumer), describeParam(k, provider)];
      if (cd !== pd) return `${L.method} takes "${k}": ${pd}, but ${L.consumer} may send ${cd}.`;
    }
    return `${L.method} does not accept every "${k}" that ${L.consumer} may send: ${v.reason}.`;
  }
  return `${L.method} does not accept every params object that ${L.consumer} may send: ${v.reason}.`;
}

/** The sentence for results that the consumer cannot read. */
function resultReason(
  v: Extract<Verdict, { ok: false }>,
  returns: Node,
  reads: Node,
  L: MethodLabels,
): string {
  const returned = describe(returns, 1);
  if (v.cannotProve) {
    return `The check cannot prove that ${L.consumer} can read every result of ${
      inner(L.method)
    }: ${v.reason}.`;
  }
  const top = follow(returns);
  const plainObject = !("error" in top) && isSchemaObject(top.schema) &&
    top.schema.properties !== undefined && top.schema.anyOf === undefined &&
    top.schema.oneOf === undefined;
  if (plainObject && v.segments.length === 0 && v.code === "required" && v.key !== undefined) {
    const verb = v.absent ? "returns" : "may return";
    return `${L.method} ${verb} ${returned} without the field "${v.key}", which ${L.consumer} requires.`;
  }
  if (plainObject && v.segments.length === 0 && v.code === "unlisted" && v.key !== undefined) {
    const view = follow(reads);
    let as = "";
    if (!("error" in view) && isSchemaObject(view.schema)) {
      const field = view.schema.properties?.[v.key];
      if (field !== undefined) as = ` as ${describe({ schema: field, scope: view.scope })}`;
    }
    return `${L.method} returns ${returned} without the field "${v.key}", which ${L.consumer} reads${as}` +
      ` (a field that is not listed may have any value).`;
  }
  return `${L.method} may return a result that ${L.consumer} cannot read: ${v.reason}.`;
}

/** A failed method verdict from a failed subschema check, with its counterexample if any. */
function failure(
  kind: MethodProblemKind,
  v: Extract<Verdict, { ok: false }>,
  reason: string,
): MethodVerdict {
  return {
    ok: false,
    kind,
    reason,
    cannotProve: v.cannotProve,
    ...("counterexample" in v ? { counterexample: v.counterexample } : {}),
  };
}

/**
 * Checks one imported method. `providerMethod` is undefined when the
 * provider has no method of that name. `labels` name the parties in the
 * reasons (by default "the consumer" and "The provider").
 */
export function checkMethod(
  consumerView: MethodSide,
  providerMethod: MethodSide | undefined,
  labels: Partial<MethodLabels> = {},
): MethodVerdict {
  const name = consumerView.method.name;
  const L: MethodLabels = {
    consumer: labels.consumer ?? "the consumer",
    iface: labels.iface ?? "The provider",
    method: labels.method ?? `The provider's ${name}`,
  };
  if (!providerMethod) {
    return {
      ok: false,
      kind: "no-method",
      reason: `${L.iface} has no method "${name}".`,
      cannotProve: false,
    };
  }
  const sends = rootNode(paramsSchema(consumerView.method, true), consumerView.defs);
  const accepts = rootNode(paramsSchema(providerMethod.method, false), providerMethod.defs);
  const params = isSubschemaNode(sends, accepts);
  if (!params.ok) {
    return failure("params", params, paramsReason(params, consumerView, providerMethod, L));
  }
  const returns = rootNode(resultSchema(providerMethod.method), providerMethod.defs);
  const reads = rootNode(resultSchema(consumerView.method), consumerView.defs);
  const result = isSubschemaNode(returns, reads);
  if (!result.ok) return failure("result", result, resultReason(result, returns, reads, L));
  return { ok: true };
}
