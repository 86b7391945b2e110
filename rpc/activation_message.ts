/**
 * The error message of a rejected activation (section 10.3), e.g.
 *
 * ```text
 * notes was not activated: 1 consumer breaks.
 * - agent imports notes.add(text: string) -> Added.
 *   The new notes.add has no param "text". It requires "body": string.
 *   Counterexample: {"text": "milk"} is not valid for the new params.
 *   Update agent first, or activate both together.
 * ```
 *
 * One item per broken method; after the items of one consumer and one
 * provider, one line that says what to do.
 *
 * @module
 */

import type { ImportProblem } from "./import_check.ts";
import { formatJson } from "./schema_describe.ts";

/** A problem of an activation, and whose it is. */
export interface ActivationProblem extends ImportProblem {
  /**
   * `consumer`: a current plugin that imports an activated one breaks.
   * `import`: an activated plugin's own import breaks.
   */
  role: "consumer" | "import";
}

/** `a`, `a and b`, `a, b and c`. */
function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function summary(problems: ActivationProblem[]): string {
  const distinct = (ps: ActivationProblem[], key: (p: ActivationProblem) => string) =>
    new Set(ps.map(key)).size;
  const consumers = distinct(problems.filter((p) => p.role === "consumer"), (p) => p.consumer);
  const own = problems.filter((p) => p.role === "import");
  const broken = distinct(
    own.filter((p) => p.kind !== "missing"),
    (p) => `${p.consumer} ${p.provider}`,
  );
  const missing = distinct(own.filter((p) => p.kind === "missing"), (p) => p.provider);
  const parts = [];
  if (consumers) parts.push(count(consumers, "consumer breaks", "consumers break"));
  if (broken) parts.push(count(broken, "import breaks", "imports break"));
  if (missing) {
    parts.push(count(missing, "imported plugin does not exist", "imported plugins do not exist"));
  }
  return parts.join(", ");
}

function counterexampleLine(p: ActivationProblem): string | undefined {
  if (!("counterexample" in p)) return undefined;
  const json = formatJson(p.counterexample);
  const version = p.providerVersion ? `the ${p.providerVersion} ` : "";
  const method = `${version}${p.provider}${p.endpoint ? `.${p.endpoint}` : ""}.${p.method}`;
  if (p.kind === "params") {
    return `Counterexample: ${json} is not valid for ${version || "its "}params.`;
  }
  if (p.kind === "result") {
    return `Counterexample: ${method} may return ${json}, which is not valid for ${p.consumer}.`;
  }
  return undefined;
}

function advice(p: ActivationProblem, activated: string[]): string {
  if (p.role === "consumer") {
    return activated.length === 1
      ? `Update ${p.consumer} first, or activate both together.`
      : `Update ${p.consumer} first, or add it to this activation.`;
  }
  if (p.kind === "missing") {
    return `Add the plugin ${p.provider} first, or remove the import of ${p.provider} from ${p.consumer}.`;
  }
  if (p.providerVersion === "new") {
    return `Update ${p.consumer}'s imports/${p.provider}.json from the new ${p.provider}, and activate both again.`;
  }
  return `Update ${p.consumer}'s imports/${p.provider}.json from /proc/core/plugins/${p.provider}/discover.json, or activate a matching ${p.provider} together with ${p.consumer}.`;
}

/** The message for people; empty when there are no problems. */
export function formatActivationMessage(
  activated: string[],
  problems: ActivationProblem[],
): string {
  if (problems.length === 0) return "";
  const verb = activated.length === 1 ? "was" : "were";
  const lines = [`${joinNames(activated)} ${verb} not activated: ${summary(problems)}.`];
  const group = (p: ActivationProblem) => `${p.role} ${p.consumer} ${p.provider}`;
  problems.forEach((p, i) => {
    lines.push(`- ${p.consumer} imports ${p.imports}.`);
    lines.push(`  ${p.reason}`);
    const cex = counterexampleLine(p);
    if (cex) lines.push(`  ${cex}`);
    const next = problems[i + 1];
    if (!next || group(next) !== group(p)) lines.push(`  ${advice(p, activated)}`);
  });
  return lines.join("\n");
}
