/**
 * The test plugins in `tests/plugins/<name>/`, built into components on
 * demand. A build is kept in the cache folder under a hash of the plugin's
 * source (and of the crates it names by `path`), so test runs after the
 * first skip cargo entirely. The SDK's examples are built by cargo each
 * time (`builtCrate`), so that a change to the SDK reaches them.
 *
 * @module
 */

import { buildPlugin } from "../../core/cargo/cargo_build.ts";
import { cachedBuild } from "../../core/cargo/cached_build.ts";
import { cacheDir } from "../../core/paths.ts";

const PLUGINS_DIR = decodeURIComponent(new URL("../plugins", import.meta.url).pathname);
const ROOT = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");

/**
 * Builds `tests/plugins/<name>/` into a WASI component (at most once per
 * process, and not at all when the cache holds a build of the same source)
 * and resolves with the component's path. Rejects with a `BuildError` when
 * the plugin does not compile.
 */
export function builtTestPlugin(name: string): Promise<string> {
  return cachedBuild(`${PLUGINS_DIR}/${name}`, "test-plugins", name);
}

/**
 * Builds the crate at `dir` (relative to the repository: an SDK example)
 * into `<cache>/sdk-test/<name>.wasm` and resolves with its path. Always
 * runs cargo, which skips what is built, so a change to the SDK is picked up.
 */
export async function builtCrate(dir: string, name: string): Promise<string> {
  const out = `${cacheDir()}/sdk-test/${name}.wasm`;
  await buildPlugin(`${ROOT}/${dir}`, out);
  return out;
}
