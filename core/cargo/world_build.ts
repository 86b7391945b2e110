/**
 * At host start, builds every plugin that has `source/` but no `plugin.wasm`
 * (a fresh clone has no binaries), showing progress; a plugin whose source
 * changed since its `plugin.wasm` was built is {@link changedPlugins}' (it
 * goes through tests and the checks, as `sausage build`). A plugin that does
 * not build does not stop the others: its failure is kept in the world
 * ({@link buildFailureFile}), its calls answer with the compiler's message
 * (`World.pluginWasm`), and one with an older `plugin.wasm` keeps running it.
 *
 * @module
 */

import type { World } from "../world/world.ts";
import { BuildError, buildPlugin } from "./cargo_build.ts";
import { recordBuilt, sourceHash, sourceState } from "./source_stamp.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where the last failed build of a plugin at start is kept (removed when one succeeds). */
function buildFailureFile(world: World, name: string): string {
  return `${world.root}/state/core/build-failures/${name}.txt`;
}

/**
 * The plugins of `world` whose source's content differs from the one their
 * `plugin.wasm` was built from (`source_stamp.ts`): `run` and `dev` test,
 * build and check them as `sausage build` does, before the boot calls.
 */
export async function changedPlugins(world: World): Promise<string[]> {
  const states = await Promise.all(
    world.pluginNames().map(async (name) => [name, await sourceState(world, name)] as const),
  );
  return states.filter(([, s]) => s === "its source changed").map(([name]) => name);
}

/** A plugin that did not build at start. */
export interface FailedBuild {
  plugin: string;
  /** One line: what failed. */
  message: string;
  /** The compiler's messages. */
  output: string;
}

/**
 * Builds the plugins of `world` that have source but no current component.
 * Every one is tried; resolves with those that failed (their reasons are
 * reported and kept in {@link buildFailureFile}).
 */
export async function buildMissing(
  world: World,
  report: (line: string) => void,
): Promise<FailedBuild[]> {
  const todo: { name: string; why: string }[] = [];
  for (const name of world.pluginNames()) {
    const why = await sourceState(world, name);
    if (why === "no plugin.wasm") todo.push({ name, why });
  }
  const failed: FailedBuild[] = [];
  for (const [i, { name, why }] of todo.entries()) {
    const dir = world.pluginDir(name);
    report(
      `sausage: building ${name} (${i + 1}/${todo.length}) from plugins/${name}/source: ${why}`,
    );
    const started = performance.now();
    const failure = buildFailureFile(world, name);
    try {
      const source = await sourceHash(`${dir}/source`);
      await buildPlugin(`${dir}/source`, `${dir}/plugin.wasm`, {
        onProgress: (line) => report(`  ${line.trim()}`),
        world: world.root,
      });
      await recordBuilt(world, name, `${dir}/plugin.wasm`, source).catch(() => {});
      await Deno.remove(failure).catch(() => {});
      report(`sausage: built ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      const kept = exists(`${dir}/plugin.wasm`);
      const message = `${name} does not build: ${e.message}` +
        (kept
          ? "; the last plugin.wasm that built keeps running"
          : "; its calls fail until it builds");
      failed.push({ plugin: name, message, output: e.output });
      report(e.output.trim());
      report(`sausage: ${message}`);
      world.coreState();
      await Deno.mkdir(`${world.root}/state/core/build-failures`, { recursive: true });
      await Deno.writeTextFile(failure, `${e.message}\n${e.output.trim()}\n`);
    }
  }
  return failed;
}
