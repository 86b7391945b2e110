/**
 * The checks of `core.activate` (section 10.3, steps 2 and 3): given the
 * documents of the current plugins and the new documents of the plugins
 * being activated (one, or several together), every import that would
 * break.
 *
 * - (a) Each activated plugin's own imports, against the providers as they
 *   would be: the new documents override the current ones. An import of a
 *   plugin that does not exist is "missing".
 * - (b) Each current plugin that imports an activated plugin (and is not
 *   activated itself), against the new version: the main interface and the
 *   endpoint interfaces it imports.
 *
 * The result carries the message for people and the `data` of the -32003
 * error.
 *
 * @module
 */

import { importsOf, type OpenRpcDocument } from "./openrpc.ts";
import { checkImport } from "./import_check.ts";
import { type ActivationProblem, formatActivationMessage } from "./activation_message.ts";

export type { ActivationProblem } from "./activation_message.ts";

/** The `data` of a rejected activation: the activated plugins and each problem. */
export interface ActivationData {
  plugins: string[];
  problems: ActivationProblem[];
}

/** The outcome of the checks. */
export interface ActivationCheck {
  /** True when nothing breaks. */
  ok: boolean;
  problems: ActivationProblem[];
  /** The message for people, as in the spec; empty when `ok`. */
  message: string;
  /** The same problems as data. */
  data: ActivationData;
}

/** The plugins by name, with their `rpc.discover` documents. */
export type Documents = ReadonlyMap<string, OpenRpcDocument>;

/**
 * Checks an activation. `current` holds the documents of all current
 * plugins; `activated` the new documents of the plugins to activate.
 */
export function checkActivation(current: Documents, activated: Documents): ActivationCheck {
  const after = new Map(current);
  for (const [name, doc] of activated) after.set(name, doc);
  const problems: ActivationProblem[] = [];

  for (const [consumer, doc] of activated) {
    for (const [provider, imports] of Object.entries(importsOf(doc))) {
      const providerDoc = after.get(provider);
      const providerVersion = activated.has(provider) ? "new" : "current";
      for (const p of checkImport({ consumer, imports, provider, providerDoc, providerVersion })) {
        problems.push({ ...p, role: "import" });
      }
    }
  }
  for (const [consumer, doc] of current) {
    if (activated.has(consumer)) continue;
    for (const [provider, imports] of Object.entries(importsOf(doc))) {
      const providerDoc = activated.get(provider);
      if (!providerDoc) continue;
      for (
        const p of checkImport({ consumer, imports, provider, providerDoc, providerVersion: "new" })
      ) {
        problems.push({ ...p, role: "consumer" });
      }
    }
  }
  const plugins = [...activated.keys()];
  return {
    ok: problems.length === 0,
    problems,
    message: formatActivationMessage(plugins, problems),
    data: { plugins, problems },
  };
}
