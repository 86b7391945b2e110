/**
 * The bound on the worlds' build folders in the cache
 * (`<cache>/builds/<toolchain>/<hash of the world's path>/`, `build_folders.ts`):
 * each holds a world's compiled dependencies, some hundreds of MiB, and a
 * world made and removed (a test's, an agent's experiment, a moved world)
 * left its folder behind for ever: 772 of them, 61 GiB, filled this
 * machine's disk in one day of test runs.
 *
 * Each folder says whose it is and when it was last used (its `world`
 * file: the world's real path, rewritten at each use). After each use the
 * folders are trimmed: a folder whose world is gone goes once unused for
 * {@link GONE_MS}; past the {@link buildsKept} most recently used, the
 * older go. A folder used within {@link IN_USE_MS} is never removed (a
 * build may be running in it). A world whose folder went compiles its
 * dependencies again on its next build.
 *
 * @module
 */

/** How many worlds' build folders are kept by default (`SAUSAGE_BUILDS_KEPT` sets it). */
export const DEFAULT_BUILDS_KEPT = 24;

/** A folder used this recently is never removed: a build may be running in it. */
export const IN_USE_MS = 60 * 60_000;

/** A folder whose world is gone goes once unused this long. */
export const GONE_MS = 10 * 60_000;

/** The file in a build folder that names its world and whose time is its last use. */
const WORLD_FILE = "world";

/** How many worlds' build folders are kept: `SAUSAGE_BUILDS_KEPT`, else {@link DEFAULT_BUILDS_KEPT}. */
export function buildsKept(): number {
  let value: string | undefined;
  try {
    value = Deno.env.get("SAUSAGE_BUILDS_KEPT");
  } catch { /* no permission to read the environment */ }
  const n = Number(value);
  return value && Number.isSafeInteger(n) && n >= 1 ? n : DEFAULT_BUILDS_KEPT;
}

/** Marks the build folder `base` as used now by the world at `root` (its real path). */
export function markUsed(base: string, root: string): void {
  Deno.mkdirSync(base, { recursive: true });
  Deno.writeTextFileSync(`${base}/${WORLD_FILE}`, root);
}

/** One build folder: its path, its world (when it says) and its last use. */
interface Folder {
  path: string;
  world: string | null;
  used: number;
}

function readFolder(path: string): Folder | null {
  try {
    const info = Deno.statSync(`${path}/${WORLD_FILE}`);
    return {
      path,
      world: Deno.readTextFileSync(`${path}/${WORLD_FILE}`),
      used: info.mtime?.getTime() ?? 0,
    };
  } catch {
    // A folder from before the bound: no world named, last used when it last changed.
    try {
      return { path, world: null, used: Deno.statSync(path).mtime?.getTime() ?? 0 };
    } catch {
      return null; // gone meanwhile
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Which build folders of `kindDir` (`<cache>/builds/<toolchain>`) go now:
 * those of worlds that are gone, unused for {@link GONE_MS}, and past the
 * `kept` most recently used, those unused for {@link IN_USE_MS}.
 */
export function foldersToRemove(
  kindDir: string,
  now = Date.now(),
  kept = buildsKept(),
): string[] {
  let names: string[];
  try {
    names = [...Deno.readDirSync(kindDir)].filter((e) => e.isDirectory).map((e) => e.name);
  } catch {
    return [];
  }
  const remove: Folder[] = [];
  const rest: Folder[] = [];
  for (const f of names.map((n) => readFolder(`${kindDir}/${n}`))) {
    if (f === null) continue;
    const gone = f.world !== null && now - f.used > GONE_MS && !isFolder(f.world);
    (gone ? remove : rest).push(f);
  }
  rest.sort((a, b) => b.used - a.used);
  remove.push(...rest.slice(kept).filter((f) => now - f.used > IN_USE_MS));
  return remove.map((f) => f.path);
}

/** Removes the build folders of `kindDir` that {@link foldersToRemove} names; resolves with them. */
export async function trimBuildFolders(kindDir: string, kept = buildsKept()): Promise<string[]> {
  const removed: string[] = [];
  for (const path of foldersToRemove(kindDir, Date.now(), kept)) {
    try {
      await Deno.remove(path, { recursive: true });
      removed.push(path);
    } catch { /* another host removed it, or it is in use on a read-only disk */ }
  }
  return removed;
}
