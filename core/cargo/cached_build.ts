/**
 * Builds of crates that the host or the tests build from this repository
 * (test plugins, the codegen plugin), kept in the cache folder under a hash
 * of the crate's source and of the crates it names by `path`, so a build
 * happens once per source version.
 *
 * @module
 */

import { buildPlugin, DEFAULT_SDK_DIR, SDK_CRATES } from "./cargo_build.ts";
import { cacheDir } from "../paths.ts";
import { sha256 } from "../cache/sha256.ts";
import { digestLines, hashFiles } from "../cache/folder_hash.ts";

/** Bump to throw away every cached build (e.g. when the build recipe changes). */
const BUILD_SALT = "sausage-build-4";

const built = new Map<string, Promise<string>>();

/**
 * Builds the crate at `dir` into a component (at most once per process, and
 * not at all when the cache holds a build of the same source); resolves with
 * the component's path under `<cache>/<kind>/`.
 */
export function cachedBuild(dir: string, kind: string, name: string): Promise<string> {
  const key = `${kind}/${dir}`;
  let entry = built.get(key);
  if (!entry) {
    entry = (async () => {
      const out = `${cacheDir()}/${kind}/${name}-${await sourceHash(dir)}.wasm`;
      try {
        await Deno.stat(out);
        return out;
      } catch { /* not built yet */ }
      await buildPlugin(dir, out);
      return out;
    })();
    built.set(key, entry);
    entry.catch(() => built.delete(key));
  }
  return entry;
}

/**
 * A short hash of a crate's files and of the crates its `Cargo.toml` files
 * reach through `path = "…"` dependencies, and of the SDK's crates (build
 * output, lockfiles and dot files left out). Crates are named by their path
 * relative to `dir`, the SDK's by `sdk:<crate>`.
 */
async function sourceHash(dir: string): Promise<string> {
  const parts: string[] = [BUILD_SALT];
  const seen = new Set<string>();
  // The SDK too: every build patches `sausage-plugin = "0.1"` to this
  // repository's SDK, so a change there must build the plugins again.
  const crates: [string, string][] = [
    [".", dir],
    ...SDK_CRATES.map((c): [string, string] => [`sdk:${c}`, `${DEFAULT_SDK_DIR}/${c}`]),
  ];
  while (crates.length) {
    const [label, root] = crates.shift()!;
    const real = await Deno.realPath(root);
    if (seen.has(real)) continue;
    seen.add(real);
    const files = await hashFiles(real, notSource);
    parts.push(...digestLines(files, label));
    for (const { rel } of files) {
      if (rel === "Cargo.toml" || rel.endsWith("/Cargo.toml")) {
        const sub = rel.includes("/") ? `/${rel.slice(0, rel.lastIndexOf("/"))}` : "";
        const text = await Deno.readTextFile(`${real}/${rel}`);
        for (const m of text.matchAll(/\bpath\s*=\s*"([^"]+)"/g)) {
          if (m[1].endsWith(".rs")) continue; // a target's source file, not a crate
          crates.push([`${label}${sub}/${m[1]}`, `${root}${sub}/${m[1]}`]);
        }
      }
    }
  }
  return (await sha256(parts.join("\n"))).slice(0, 16);
}

/** Not source: `target/` at the top, `Cargo.lock` and dot entries. */
function notSource(name: string, rel: string): boolean {
  return name.startsWith(".") || name === "Cargo.lock" || rel === "target";
}
