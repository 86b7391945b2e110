/**
 * At host start, builds every plugin that has `source/` but no `plugin.wasm`
 * (a fresh clone has no binaries), showing progress.
 *
 * @module
 */

import type { World } from "../world.ts";
import { buildPlugin } from "./cargo_build.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Builds the plugins of `world` that have source but no component. Throws on the first failure. */
export async function buildMissing(world: World, report: (line: string) => void): Promise<void> {
  const todo = world.pluginNames().filter((name) => {
    const dir = world.pluginDir(name);
    return exists(`${dir}/source/Cargo.toml`) && !exists(`${dir}/plugin.wasm`);
  });
  for (const [i, name] of todo.entries()) {
    const dir = world.pluginDir(name);
    report(`sausage: building ${name} (${i + 1}/${todo.length}) from plugins/${name}/source`);
    const started = performance.now();
    await buildPlugin(`${dir}/source`, `${dir}/plugin.wasm`, {
      onProgress: (line) => report(`  ${line.trim()}`),
    });
    report(`sausage: built ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}
