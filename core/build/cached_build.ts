/**
 * Builds of crates that the host or the tests build from this repository
 * (test plugins, the codegen plugin), kept in the cache folder under a hash
 * of the crate's source and of the crates it names by `path`, so a build
 * happens once per source version.
 *
 * @module
 */

import { buildPlugin } from "./cargo_build.ts";
import { cacheDir } from "../paths.ts";

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
 * reach through `path = "…"` dependencies (build output, lockfiles and dot
 * files left out). Crates are named by their path relative to `dir`.
 */
export async function sourceHash(dir: string): Promise<string> {
  const parts: string[] = [BUILD_SALT];
  const seen = new Set<string>();
  const crates: [string, string][] = [[".", dir]];
  while (crates.length) {
    const [label, root] = crates.shift()!;
    const real = await Deno.realPath(root);
    if (seen.has(real)) continue;
    seen.add(real);
    for (const rel of await filesOf(real)) {
      const bytes = await Deno.readFile(`${real}/${rel}`);
      parts.push(`${label}/${rel}\n${await sha256Hex(bytes)}`);
      if (rel === "Cargo.toml" || rel.endsWith("/Cargo.toml")) {
        const base = rel.includes("/") ? `${label}/${rel.slice(0, rel.lastIndexOf("/"))}` : label;
        for (const m of new TextDecoder().decode(bytes).matchAll(/\bpath\s*=\s*"([^"]+)"/g)) {
          if (m[1].endsWith(".rs")) continue; // a target's source file, not a crate
          crates.push([`${base}/${m[1]}`, `${dir}/${base}/${m[1]}`]);
        }
      }
    }
  }
  return (await sha256Hex(new TextEncoder().encode(parts.join("\n")))).slice(0, 16);
}

/** The files under `root`, relative and sorted, less `target/`, `Cargo.lock` and dot entries. */
async function filesOf(root: string, sub = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(sub ? `${root}/${sub}` : root)) {
    if (e.name.startsWith(".") || e.name === "Cargo.lock" || (!sub && e.name === "target")) {
      continue;
    }
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory) names.push(...await filesOf(root, rel));
    else if (e.isFile) names.push(rel);
  }
  return names.sort();
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
