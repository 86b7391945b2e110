/**
 * Which plugins `run` and `dev` build at start (and `dev` when the world
 * changes): those with a source but no `plugin.wasm` (a fresh clone, a
 * plugin added with `sausage new`) and those whose source changed since
 * their `plugin.wasm` was built ({@link staleSources}). They go through
 * what `sausage build` does (`cargo.build`: tests first, then the checks of
 * `core.activate`); nothing is built at start without its tests
 * (`cli/start_builds.ts`). A plugin with no `plugin.wasm` whose build or
 * tests failed keeps the reason in the world ({@link recordStartFailure}):
 * its calls answer with it (`World.pluginComponent`).
 *
 * @module
 */

import type { World } from "../world/world.ts";
import { type SourceState, sourceState } from "./source_stamp.ts";
import { removeWorldEntry, writeWorldFile } from "../world/world_files.ts";

/** Where the last failed build of a plugin at start is kept, relative to the world. */
function startFailureFile(name: string): string {
  return `state/core/build-failures/${name}.txt`;
}

/**
 * The plugins of `world` whose source's content differs from the one their
 * `plugin.wasm` was built from (`source_stamp.ts`).
 */
export async function changedPlugins(world: World): Promise<string[]> {
  return (await staleSources(world)).filter((s) => s.why === "its source changed")
    .map((s) => s.name);
}

/** A plugin whose `plugin.wasm` is missing or was built from another source. */
export interface StaleSource {
  name: string;
  why: Extract<SourceState, "no plugin.wasm" | "its source changed">;
}

/**
 * The plugins of `world` to test, build and activate before they answer:
 * no `plugin.wasm` yet, or one built from another source. In name order.
 */
export async function staleSources(world: World): Promise<StaleSource[]> {
  const states = await Promise.all(
    world.pluginNames().map(async (name) => ({ name, why: await sourceState(world, name) })),
  );
  return states.filter((s): s is StaleSource =>
    s.why === "no plugin.wasm" || s.why === "its source changed"
  );
}

/**
 * Keeps why `name` (which has no `plugin.wasm`) was not installed at start:
 * `message` (one line) then `output` (the compiler's or the tests' text).
 * Its calls answer with it until a build of it is activated.
 */
export function recordStartFailure(
  world: World,
  name: string,
  message: string,
  output: string,
): void {
  world.coreState();
  writeWorldFile(world.root, startFailureFile(name), `${message}\n${output.trim()}\n`);
}

/** Forgets the failure {@link recordStartFailure} kept for `name` (a build of it was activated). */
export function clearStartFailure(world: World, name: string): void {
  try {
    removeWorldEntry(world.root, startFailureFile(name));
  } catch { /* none */ }
}
