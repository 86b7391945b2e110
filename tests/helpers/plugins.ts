/**
 * The test plugins in `tests/plugins/<name>/`, built into components on
 * demand. A build is kept in the cache folder under a hash of the plugin's
 * source (and of the crates it names by `path`), so test runs after the
 * first skip cargo entirely.
 *
 * @module
 */

import { buildPlugin } from "../../core/build/cargo_build.ts";
import { cacheDir } from "../../core/paths.ts";

/** Bump to throw away every cached test plugin (e.g. when the build changes). */
const BUILD_SALT = "sausage-test-plugin-2";

const PLUGINS_DIR = decodeURIComponent(new URL("../plugins", import.meta.url).pathname);

const built = new Map<string, Promise<string>>();

/**
 * Builds `tests/plugins/<name>/` into a WASI component (at most once per
 * process, and not at all when the cache holds a build of the same source)
 * and resolves with the component's path. Rejects with a `BuildError` when
 * the plugin does not compile.
 */
export function builtTestPlugin(name: string): Promise<string> {
  let entry = built.get(name);
  if (!entry) {
    entry = build(name);
    built.set(name, entry);
    entry.catch(() => built.delete(name));
  }
  return entry;
}

async function build(name: string): Promise<string> {
  const dir = `${PLUGINS_DIR}/${name}`;
  const hash = await sourceHash(dir);
  const out = `${cacheDir()}/test-plugins/${name}-${hash}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* not built yet */ }
  await buildPlugin(dir, out);
  return out;
}

/**
 * A short hash of a crate's files and of the crates its `Cargo.toml` files
 * reach through `path = "…"` dependencies (build output, lockfiles and dot
 * files left out). Crates are named by their path relative to `dir`.
 */
async function sourceHash(dir: string): Promise<string> {
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
