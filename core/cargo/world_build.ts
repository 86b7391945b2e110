/**
 * At host start, builds every plugin that has `source/` but no `plugin.wasm`
 * (a fresh clone has no binaries), or whose source changed after its
 * `plugin.wasm` was made, showing progress. A plugin that does not build does
 * not stop the others: its failure is kept in the world
 * ({@link buildFailureFile}), its calls answer with the compiler's message
 * (`World.pluginWasm`), and one with an older `plugin.wasm` keeps running it.
 *
 * @module
 */

import type { World } from "../world.ts";
import { BuildError, buildPlugin } from "./cargo_build.ts";

function mtime(path: string): number | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime();
  } catch {
    return undefined;
  }
}

/** Build output and editor files, which do not change a plugin. */
function ignored(name: string): boolean {
  return name === "target" || name.startsWith(".") || name === "Cargo.lock" ||
    name.endsWith("~");
}

/** The newest modification time under `dir` (links followed), 0 when it is empty or missing. */
function newestSourceTime(dir: string): number {
  let newest = 0;
  const walk = (d: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(d)];
    } catch {
      return;
    }
    for (const e of entries) {
      if (ignored(e.name)) continue;
      const path = `${d}/${e.name}`;
      const t = mtime(path) ?? 0;
      if (t > newest) newest = t;
      if (depth < 16 && (e.isDirectory || e.isSymlink)) walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return newest;
}

/** Where the last failed build of a plugin at start is kept (removed when one succeeds). */
function buildFailureFile(world: World, name: string): string {
  return `${world.root}/state/core/build-failures/${name}.txt`;
}

/** Why a plugin needs a build at start, or null when its `plugin.wasm` is current. */
function staleReason(world: World, name: string): string | null {
  const dir = world.pluginDir(name);
  if (mtime(`${dir}/source/Cargo.toml`) === undefined) return null;
  const built = mtime(`${dir}/plugin.wasm`);
  if (built === undefined) return "no plugin.wasm";
  return newestSourceTime(`${dir}/source`) > built ? "its source changed" : null;
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
  const todo = world.pluginNames().flatMap((name) => {
    const why = staleReason(world, name);
    return why ? [{ name, why }] : [];
  });
  const failed: FailedBuild[] = [];
  for (const [i, { name, why }] of todo.entries()) {
    const dir = world.pluginDir(name);
    report(
      `sausage: building ${name} (${i + 1}/${todo.length}) from plugins/${name}/source: ${why}`,
    );
    const started = performance.now();
    const failure = buildFailureFile(world, name);
    try {
      await buildPlugin(`${dir}/source`, `${dir}/plugin.wasm`, {
        onProgress: (line) => report(`  ${line.trim()}`),
        world: world.root,
      });
      await Deno.remove(failure).catch(() => {});
      report(`sausage: built ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      const kept = mtime(`${dir}/plugin.wasm`) !== undefined;
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
