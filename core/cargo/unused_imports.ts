/**
 * Unused imported methods (sections 11 and 13.4): `import!("notes")`
 * generates `mod notes` with a `pub(crate)` function per method of
 * `imports/notes.json` (and a `Client` with methods per endpoint interface),
 * so rustc's `dead_code` lint names each one the plugin does not call. This
 * turns those warnings into advice: `notes.add is imported but not used:
 * remove it from imports/notes.json`. Other warnings inside an `import!`
 * (generated types that only unused methods use) are dropped; every other
 * warning stays as rustc rendered it.
 *
 * @module
 */

import type { Diagnostic } from "./diagnostic.ts";

/** The methods of a provider's description, and of each of its endpoints. */
interface Provider {
  methods: Set<string>;
  endpoints: Map<string, Set<string>>;
}

/** Reads `imports/<name>.json` of the crate (null when it is missing or not JSON). */
async function readProvider(sourceDir: string, name: string): Promise<Provider | null> {
  let doc: {
    methods?: { name?: unknown }[];
    "x-sausage-endpoints"?: Record<string, { methods?: { name?: unknown }[] }>;
  };
  try {
    doc = JSON.parse(await Deno.readTextFile(`${sourceDir}/imports/${name}.json`));
  } catch {
    return null;
  }
  const names = (list: { name?: unknown }[] | undefined) =>
    new Set(
      (Array.isArray(list) ? list : []).map((m) => m?.name).filter((n): n is string =>
        typeof n === "string"
      ),
    );
  const endpoints = new Map<string, Set<string>>();
  for (const [e, iface] of Object.entries(doc?.["x-sausage-endpoints"] ?? {})) {
    endpoints.set(e, names(iface?.methods));
  }
  return { methods: names(doc?.methods), endpoints };
}

/** The provider of an `import!("name")` that a diagnostic points into, or null. */
function importedFrom(d: Diagnostic): string | null {
  for (const span of d.spans) {
    if (!span.is_primary) continue;
    for (const t of span.text) {
      const m = t.text.match(/\bimport!\s*\(\s*"([a-z0-9_-]+)"\s*\)/);
      if (!m) continue;
      // The highlight covers the literal: every generated token has its span.
      const lit = t.text.slice(t.highlight_start - 1, t.highlight_end - 1);
      if (lit === `"${m[1]}"` || lit.includes(m[1])) return m[1];
    }
  }
  return null;
}

/** The names in backquotes of a `dead_code` message (`functions `a` and `b` are never used`). */
function names(message: string): string[] {
  return [...message.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

/**
 * The warnings of a build, with the `dead_code` warnings of generated
 * imports turned into one line per unused imported method or endpoint.
 *
 * @param sourceDir the crate (its `imports/` folder says which name is a method and which an endpoint's)
 */
export async function importWarnings(
  diagnostics: Diagnostic[],
  sourceDir: string,
): Promise<string[]> {
  const out: string[] = [];
  const advice = new Set<string>();
  const providers = new Map<string, Provider | null>();
  for (const d of diagnostics) {
    const rendered = (d.rendered ?? d.message).trimEnd();
    const provider = importedFrom(d);
    if (!provider) {
      out.push(rendered);
      continue;
    }
    if (d.code?.code !== "dead_code") continue; // about generated code, not the plugin's
    if (!providers.has(provider)) providers.set(provider, await readProvider(sourceDir, provider));
    const p = providers.get(provider);
    const file = `imports/${provider}.json`;
    const kind = d.message.match(/^(\w+(?: \w+)?)\s+`/)?.[1] ?? "";
    if (!/^(functions?|methods?|associated functions?)$/.test(kind)) continue; // generated types
    for (const name of names(d.message)) {
      const isMethod = kind.startsWith("method") || kind.startsWith("associated");
      if (!isMethod && p?.methods.has(name)) {
        advice.add(`${provider}.${name} is imported but not used: remove it from ${file}`);
        continue;
      }
      const endpoints = [...p?.endpoints ?? []];
      if (!isMethod && name === "connect") {
        const e = endpoints.length === 1 ? endpoints[0][0] : undefined;
        advice.add(
          e
            ? `the endpoint ${provider}.${e} is imported but not used: remove it from x-sausage-endpoints in ${file}`
            : `an endpoint of ${provider} is imported but not used: remove it from x-sausage-endpoints in ${file}`,
        );
        continue;
      }
      const owners = endpoints.filter(([, methods]) => methods.has(name)).map(([e]) => e);
      if (isMethod && owners.length) {
        for (const e of owners) {
          advice.add(
            `${provider}.${e}.${name} (endpoint ${e}) is imported but not used: ` +
              `remove it from x-sausage-endpoints.${e} in ${file}`,
          );
        }
        continue;
      }
      advice.add(`${provider}: ${name} is imported but not used: remove it from ${file}`);
    }
  }
  // An unused endpoint makes its methods unused too: name the endpoint only.
  const unusedEndpoints = [...advice].flatMap((a) =>
    a.match(/^the endpoint ([^ ]+) is imported/)?.[1] ?? []
  );
  const kept = [...advice].filter((a) => !unusedEndpoints.some((e) => a.startsWith(`${e}.`)));
  return [...kept, ...out];
}
