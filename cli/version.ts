/**
 * `sausage --version`: Sausage's version (and, in the one-file form, which
 * build of it), the Deno that runs it and the jco that transpiles components.
 *
 * @module
 */

import pkg from "../package.json" with { type: "json" };
import config from "../deno.json" with { type: "json" };

/** The exact version an import map entry pins (`npm:name@1.2.3`). */
function pinned(specifier: string | undefined): string {
  return specifier?.match(/@(\d[^/]*)$/)?.[1] ?? "unknown";
}

/** The lines `sausage --version` prints. */
export function versionText(): string {
  const dist = Deno.env.get("SAUSAGE_DIST_HASH");
  const imports = config.imports as Record<string, string>;
  return [
    `sausage ${pkg.version}${dist ? ` (one file, archive ${dist.slice(0, 12)})` : ""}`,
    `deno ${Deno.version.deno}`,
    `jco ${pinned(imports["@bytecodealliance/jco"])}`,
  ].join("\n");
}
