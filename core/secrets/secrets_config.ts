/**
 * `config/secrets.json`: which plugins may read which secret. The owner's
 * file (guests get `read-only` on `config/`), JSONC, read through the
 * confined config reader:
 *
 * ```jsonc
 * { "OPENAI_API_KEY": { "plugins": ["agent"] } }
 * ```
 *
 * A secret not listed, or a plugin not listed for it, is refused. A bad file
 * never stops the host: each problem (the file, the key, what is wrong and
 * what was used instead) is one line, and the rest of the file applies.
 *
 * @module
 */

import { ConfigSyntaxError, readConfigFile } from "../world/config_file.ts";
import { pluginNameProblem } from "../world/world.ts";
import { secretNameProblem } from "./secret_name.ts";

/** The file, relative to the world. */
export const SECRETS_CONFIG = "config/secrets.json";

/** The keys an entry may have. */
const KEYS = ["plugins"];

/** Who may read what, and what was wrong with the file (one line each; empty when nothing). */
export interface SecretGrants {
  /** The plugins that may read each secret, by the secret's name. */
  grants: Map<string, Set<string>>;
  problems: string[];
}

/**
 * Reads `config/secrets.json` of the world at `root`. Never throws for what
 * the file holds: a missing file grants nothing; an unreadable or broken one
 * grants nothing and says so; a bad entry is left out, a bad plugin name in
 * one is ignored, each with a problem line.
 */
export function readSecretGrants(root: string): SecretGrants {
  let json: unknown;
  try {
    json = readConfigFile(root, SECRETS_CONFIG);
  } catch (e) {
    const why = e instanceof ConfigSyntaxError
      ? e.message
      : `${SECRETS_CONFIG}: cannot be read (${e instanceof Error ? e.message : e})`;
    return { grants: new Map(), problems: [`${why}; no plugin may read a secret`] };
  }
  return json === undefined ? { grants: new Map(), problems: [] } : parseSecretGrants(json);
}

/** The grants of the parsed JSON of `config/secrets.json` ({@link readSecretGrants}). */
export function parseSecretGrants(json: unknown): SecretGrants {
  const grants = new Map<string, Set<string>>();
  const problems: string[] = [];
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    problems.push(
      `${SECRETS_CONFIG}: must be an object of secret names, e.g. ` +
        `{"OPENAI_API_KEY": {"plugins": ["agent"]}}; no plugin may read a secret`,
    );
    return { grants, problems };
  }
  for (const [name, entry] of Object.entries(json)) {
    const nameProblem = secretNameProblem(name);
    if (nameProblem) {
      problems.push(`${SECRETS_CONFIG}: ${nameProblem}; the entry is ignored`);
      continue;
    }
    const plugins = (entry as { plugins?: unknown })?.plugins;
    if (
      typeof entry !== "object" || entry === null || Array.isArray(entry) ||
      !Array.isArray(plugins)
    ) {
      problems.push(
        `${SECRETS_CONFIG}: "${name}" must be {"plugins": [<plugin names>]}, not ` +
          `${JSON.stringify(entry)}; no plugin may read ${name}`,
      );
      continue;
    }
    for (const key of Object.keys(entry)) {
      if (!KEYS.includes(key)) {
        problems.push(
          `${SECRETS_CONFIG}: "${name}": unknown key "${key}" ignored (known: ${KEYS.join(", ")})`,
        );
      }
    }
    const allowed = new Set<string>();
    for (const plugin of plugins) {
      const problem = typeof plugin === "string"
        ? pluginNameProblem(plugin)
        : `a plugin name must be a string, not ${JSON.stringify(plugin)}`;
      if (problem) {
        problems.push(`${SECRETS_CONFIG}: "${name}".plugins: ${problem}; it is ignored`);
      } else allowed.add(plugin);
    }
    grants.set(name, allowed);
  }
  return { grants, problems };
}
