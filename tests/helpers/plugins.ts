/**
 * The test plugins in `tests/plugins/<name>/`, built into components on
 * demand. A build is kept in the cache folder under a hash of the plugin's
 * source (and of the crates it names by `path`), so test runs after the
 * first skip cargo entirely.
 *
 * @module
 */

import { cachedBuild } from "../../core/cargo/cached_build.ts";

const PLUGINS_DIR = decodeURIComponent(new URL("../plugins", import.meta.url).pathname);

/**
 * Builds `tests/plugins/<name>/` into a WASI component (at most once per
 * process, and not at all when the cache holds a build of the same source)
 * and resolves with the component's path. Rejects with a `BuildError` when
 * the plugin does not compile.
 */
export function builtTestPlugin(name: string): Promise<string> {
  return cachedBuild(`${PLUGINS_DIR}/${name}`, "test-plugins", name);
}
