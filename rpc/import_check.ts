/**
 * One consumer's import of one provider, checked: each imported method of
 * the main interface and of each imported endpoint interface, with the
 * rules of `schema_compat.ts`. The activation check and the graph both use
 * it.
 *
 * @module
 */

import {
  endpointsOf,
  type ImportDescription,
  type MethodObject,
  type OpenRpcDocument,
  schemaDefs,
} from "./openrpc.ts";
import { checkMethod, signature } from "./schema_compat.ts";

/** What is wrong with an import. */
export type ProblemKind =
  /** The provider plugin does not exist. */
  | "missing"
  /** The provider has no method of that name. */
  | "no-method"
  /** The provider has no endpoint interface of that name. */
  | "no-endpoint"
  /** The provider does not accept every params object the consumer may send. */
  | "params"
  /** The consumer cannot read every result the provider may return. */
  | "result";

/** One problem of an import. */
export interface ImportProblem {
  consumer: string;
  provider: string;
  /** The endpoint interface, for a method of an endpoint. */
  endpoint?: string;
  /** The method, unless the whole provider or endpoint is missing. */
  method?: string;
  kind: ProblemKind;
  /** What the consumer imports, e.g. `notes.add(text: string) -> Added`. */
  imports: string;
  /** What is wrong, in sentences. */
  reason: string;
  /** A concrete value that shows it, when the check found one (see `schema_compat.ts`). */
  counterexample?: unknown;
  /** True when the check could not decide rather than found a difference. */
  cannotProve: boolean;
  /** Which version of the provider was checked: the one being activated, or the current one. */
  providerVersion?: "new" | "current";
}

/** The import to check. */
export interface ImportCheck {
  /** The consumer's name. */
  consumer: string;
  /** The consumer's `x-sausage-imports.<provider>` entry. */
  imports: ImportDescription;
  /** The provider's name. */
  provider: string;
  /** The provider's document; undefined when there is no such plugin. */
  providerDoc: OpenRpcDocument | undefined;
  /** How the messages call the provider: "the new notes", "the current notes", or just "notes". */
  providerVersion?: "new" | "current";
}

/** The imported method names, endpoint methods as `<endpoint>.<method>`: `add`, `control.stats`. */
export function importedMethodNames(imports: ImportDescription): string[] {
  const names = (imports.methods ?? []).map((m) => m.name);
  for (const [endpoint, iface] of Object.entries(imports.endpoints ?? {})) {
    names.push(...(iface.methods ?? []).map((m) => `${endpoint}.${m.name}`));
  }
  return names;
}

const listOr = (names: string[], none: string) => names.length ? names.join(", ") : none;

/** Every problem of one import; empty when it is compatible. */
export function checkImport(c: ImportCheck): ImportProblem[] {
  const { consumer, imports, provider, providerDoc, providerVersion } = c;
  const base = { consumer, provider, ...(providerVersion ? { providerVersion } : {}) };
  if (!providerDoc) {
    return [{
      ...base,
      kind: "missing",
      imports: `${provider} (${importedMethodNames(imports).join(", ")})`,
      reason: `There is no plugin ${provider}.`,
      cannotProve: false,
    }];
  }
  const cDefs = schemaDefs(imports), pDefs = schemaDefs(providerDoc);
  // Plugin names are lowercase, and stay so at the start of a sentence.
  const subject = providerVersion ? `The ${providerVersion} ${provider}` : provider;
  const problems: ImportProblem[] = [];

  const checkInterface = (
    consumed: MethodObject[],
    offered: MethodObject[],
    iface: string,
    describeImport: (m: MethodObject) => string,
    endpoint?: string,
  ) => {
    for (const m of consumed) {
      const pm = offered.find((o) => o.name === m.name);
      const v = checkMethod(
        { method: m, defs: cDefs },
        pm && { method: pm, defs: pDefs },
        { consumer, iface, method: `${iface}.${m.name}` },
      );
      if (v.ok) continue;
      const others = offered.map((o) => o.name);
      const reason = v.kind === "no-method"
        ? `${v.reason} It has: ${listOr(others, "no methods")}.`
        : v.reason;
      problems.push({
        ...base,
        ...(endpoint !== undefined ? { endpoint } : {}),
        method: m.name,
        kind: v.kind,
        imports: describeImport(m),
        reason,
        cannotProve: v.cannotProve,
        ...("counterexample" in v ? { counterexample: v.counterexample } : {}),
      });
    }
  };

  checkInterface(
    imports.methods ?? [],
    providerDoc.methods ?? [],
    subject,
    (m) => `${provider}.${signature(m, cDefs)}`,
  );
  const offeredEndpoints = endpointsOf(providerDoc);
  for (const [endpoint, iface] of Object.entries(imports.endpoints ?? {})) {
    const consumed = iface.methods ?? [];
    const offered = offeredEndpoints[endpoint];
    if (!offered) {
      problems.push({
        ...base,
        endpoint,
        kind: "no-endpoint",
        imports: `the endpoint ${provider}.${endpoint} (${consumed.map((m) => m.name).join(", ")})`,
        reason: `${subject} has no endpoint "${endpoint}". It has: ${
          listOr(Object.keys(offeredEndpoints), "no endpoints")
        }.`,
        cannotProve: false,
      });
      continue;
    }
    checkInterface(
      consumed,
      offered.methods ?? [],
      `${subject}.${endpoint}`,
      (m) => `${signature(m, cDefs)} from the endpoint ${provider}.${endpoint}`,
      endpoint,
    );
  }
  return problems;
}
