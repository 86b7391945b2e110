/**
 * Which source a plugin's `plugin.wasm` was built from, by content: every
 * build of a world's plugin (`cargo.build`, the build at start) records the
 * hash of the component it made and the hash of the source it made it from
 * (a Rust crate or a TypeScript plugin; `state/core/built-from/<plugin>.json`), so `run` and `dev` rebuild a
 * plugin only when its source's content differs from the one its current
 * `plugin.wasm` came from. Touching a file, or `cargo fmt` changing nothing,
 * rebuilds nothing.
 *
 * @module
 */

import { sha256 } from "../cache/sha256.ts";
import { folderHash } from "../cache/folder_hash.ts";
import type { World } from "../world/world.ts";
import { sourceLanguage } from "../typescript/ts_source.ts";

/** How many builds of a plugin are remembered (the current one, the previous one, and builds not activated). */
export const BUILT_FROM_ENTRIES = 32;

/**
 * Build output, lockfiles, installed packages and dot entries (editors'
 * files, `.cargo/`): not the plugin's source.
 */
function notSource(name: string, rel: string): boolean {
  return rel === "target" || rel === "node_modules" || name.startsWith(".") ||
    name === "Cargo.lock" || name.endsWith("~");
}

/** Hex SHA-256 of a plugin's source folder: its files' paths and contents. */
export function sourceHash(dir: string): Promise<string> {
  return folderHash(dir, notSource);
}

/** The file that records the builds of `plugin`: component hash to source hash. */
function recordFile(world: World, plugin: string): string {
  return `${world.coreState()}/built-from/${plugin}.json`;
}

function readRecord(world: World, plugin: string): Record<string, string> {
  try {
    const v = JSON.parse(Deno.readTextFileSync(recordFile(world, plugin)));
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/**
 * Records that the component at host path `wasm` was built from the source
 * whose hash is `source` (the newest {@link BUILT_FROM_ENTRIES} are kept).
 */
export async function recordBuilt(
  world: World,
  plugin: string,
  wasm: string,
  source: string,
): Promise<void> {
  const component = await sha256(await Deno.readFile(wasm));
  const record = readRecord(world, plugin);
  delete record[component]; // re-inserted last: the newest
  record[component] = source;
  const kept = Object.entries(record).slice(-BUILT_FROM_ENTRIES);
  await Deno.mkdir(`${world.coreState()}/built-from`, { recursive: true });
  const file = recordFile(world, plugin);
  const tmp = `${file}.${crypto.randomUUID()}`;
  await Deno.writeTextFile(tmp, JSON.stringify(Object.fromEntries(kept), null, 1));
  await Deno.rename(tmp, file);
}

/** A plugin's `plugin.wasm` against its source. */
export type SourceState =
  /** No `source/Cargo.toml` or `source/plugin.ts`: not built from source here. */
  | "no source"
  /** A source but no `plugin.wasm` (a fresh clone). */
  | "no plugin.wasm"
  /** The source's content differs from the one `plugin.wasm` was built from. */
  | "its source changed"
  /** `plugin.wasm` was built from this very source. */
  | "current";

function mtime(path: string): number | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime();
  } catch {
    return undefined;
  }
}

/**
 * Where `plugin`'s `plugin.wasm` stands against its source. A component no
 * build recorded (a world from before the record, a copy by hand) counts as
 * built from its source when no source file is newer than it; that source
 * is then recorded as its own, so a later touch changes nothing.
 */
export async function sourceState(world: World, plugin: string): Promise<SourceState> {
  const dir = world.pluginDir(plugin);
  if (!sourceLanguage(`${dir}/source`)) return "no source";
  const built = mtime(`${dir}/plugin.wasm`);
  if (built === undefined) return "no plugin.wasm";
  const [component, source] = await Promise.all([
    Deno.readFile(`${dir}/plugin.wasm`).then(sha256),
    sourceHash(`${dir}/source`),
  ]);
  const from = readRecord(world, plugin)[component];
  if (from !== undefined) return from === source ? "current" : "its source changed";
  if (newestTime(`${dir}/source`) > built) return "its source changed";
  await recordBuilt(world, plugin, `${dir}/plugin.wasm`, source).catch(() => {});
  return "current";
}

/** The newest modification time of the source files under `dir` (0 when none). */
function newestTime(dir: string, depth = 0): number {
  let newest = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (notSource(e.name, depth === 0 ? e.name : "")) continue;
    const path = `${dir}/${e.name}`;
    newest = Math.max(newest, mtime(path) ?? 0);
    if (depth < 16 && e.isDirectory) newest = Math.max(newest, newestTime(path, depth + 1));
  }
  return newest;
}
