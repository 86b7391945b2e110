/**
 * The world's copy of the SDK (section 11): `sausage-plugin = "0.1"` in a
 * plugin's `Cargo.toml` resolves to `/plugins/cargo/sdk/`, so that agents in
 * the world can read the SDK they build against. A host copies this
 * repository's `sdk/` there at start when the copy is missing or differs
 * (by a hash of the files), and `cargo.build` builds with that folder.
 *
 * @module
 */

import { DEFAULT_SDK_DIR } from "./cargo_build.ts";
import { folderHash, listFiles } from "../cache/folder_hash.ts";
import {
  inWorldFolder,
  makeWorldFolder,
  removeWorldEntry,
  renameInWorld,
  worldFolder,
} from "../world/world_files.ts";

/** The folder that holds the SDK copy, relative to the world folder. */
const SDK_PARENT = "plugins/cargo";

/** Where the SDK copy lives, relative to the world folder. */
const WORLD_SDK = `${SDK_PARENT}/sdk`;

/** The SDK folder of a world. */
export function worldSdkDir(worldRoot: string): string {
  return `${worldRoot}/${WORLD_SDK}`;
}

/**
 * Not part of the SDK: build output, dot entries, and the repository's
 * TypeScript test harness (`ui_test.ts` imports the host's code by relative
 * path, and would be found by `deno test` in a world inside the repository).
 */
function skipped(name: string): boolean {
  return name.startsWith(".") || name === "target" || name === "node_modules" ||
    name.endsWith(".ts");
}

/** A hash of the SDK files under `root`: their paths and contents. */
export function sdkHash(root: string): Promise<string> {
  return folderHash(root, skipped);
}

/**
 * Makes the world's `plugins/cargo/sdk/` a copy of the SDK files of `from`
 * unless it already holds the same files; resolves with what it did. The
 * new copy is made beside it and renamed into place, so a build never sees
 * half a copy. Guests may change `plugins/cargo/`: every write, rename and
 * removal is confined to the world (`world_files.ts`), so a link a guest
 * left there is replaced or refused, never followed. With `stamp` (a file
 * outside the copy that guests cannot write), a host that finds both
 * folders as the last one left them skips the comparison.
 */
export async function syncSdk(
  from: string,
  worldRoot: string,
  stamp?: string,
): Promise<"copied" | "unchanged"> {
  const root = await Deno.realPath(worldRoot);
  worldFolder(root, SDK_PARENT, { create: true }); // no link on the way: refused with a clear error
  const to = worldSdkDir(root);
  if (!stamp) return await copyUnlessEqual(from, root);
  const seen = await readStamp(stamp);
  // The source's print is taken first: if it changes while this runs, the
  // stamp does not match it next time, and that host compares again.
  const [fromPrint, toPrint] = await Promise.all([sdkStatPrint(from), sdkStatPrint(to)]);
  if (seen && seen[0] === fromPrint && seen[1] === toPrint) return "unchanged";
  const did = await copyUnlessEqual(from, root);
  await Deno.writeTextFile(stamp, JSON.stringify([fromPrint, await sdkStatPrint(to)]));
  return did;
}

/**
 * A cheap print of the SDK files under `root`: each one's path, size, inode,
 * modification and change times (a guest can set a file's mtime back, not
 * its ctime). Equal prints on both sides since the last full comparison
 * mean nothing changed, without reading a file: ~2 ms for the SDK's ~100
 * files, where hashing them took the event loop for ~200 ms.
 */
async function sdkStatPrint(root: string): Promise<string> {
  const lines: string[] = [];
  for (const rel of await listFiles(root, skipped)) {
    const i = Deno.lstatSync(`${root}/${rel}`);
    lines.push(`${rel} ${i.size} ${i.ino} ${i.mtime?.getTime()} ${i.ctime?.getTime()}`);
  }
  return lines.join("\n");
}

/** The prints a stamp file holds, or null when it is missing or unreadable. */
async function readStamp(path: string): Promise<[string, string] | null> {
  try {
    const v: unknown = JSON.parse(await Deno.readTextFile(path));
    return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "string")
      ? [v[0], v[1]]
      : null;
  } catch {
    return null;
  }
}

/** True when the world's copy is a real folder holding no link (a link is never compared). */
function plainCopy(root: string): boolean {
  const walk = (rel: string): boolean => {
    let entries: Deno.DirEntry[];
    try {
      if (!Deno.lstatSync(`${root}/${rel}`).isDirectory) return false;
      entries = [...Deno.readDirSync(`${root}/${rel}`)];
    } catch {
      return false;
    }
    return entries.every((e) =>
      !e.isSymlink && (!e.isDirectory || skipped(e.name) || walk(`${rel}/${e.name}`))
    );
  };
  return walk(WORLD_SDK);
}

/**
 * Copies the SDK into the world unless the copy holds the same files (by a
 * hash of them), each write and rename confined to `plugins/cargo/`.
 */
async function copyUnlessEqual(from: string, root: string): Promise<"copied" | "unchanged"> {
  const to = worldSdkDir(root);
  if (plainCopy(root)) {
    const [want, have] = await Promise.all([sdkHash(from), sdkHash(to)]);
    if (want === have) return "unchanged";
  }
  const tmp = `sdk.tmp-${crypto.randomUUID()}`;
  try {
    makeWorldFolder(root, `${SDK_PARENT}/${tmp}`);
    for (const rel of await listFiles(from, skipped)) {
      const cut = rel.lastIndexOf("/");
      const folder = `${SDK_PARENT}/${tmp}${cut > 0 ? `/${rel.slice(0, cut)}` : ""}`;
      const data = await Deno.readFile(`${from}/${rel}`);
      inWorldFolder(
        root,
        folder,
        () => Deno.writeFileSync(rel.slice(cut + 1), data, { createNew: true }),
      );
    }
    const old = `sdk.old-${crypto.randomUUID()}`;
    try {
      renameInWorld(root, SDK_PARENT, "sdk", old);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    renameInWorld(root, SDK_PARENT, tmp, "sdk");
    try {
      removeWorldEntry(root, `${SDK_PARENT}/${old}`);
    } catch { /* left for the next copy */ }
  } catch (e) {
    try {
      removeWorldEntry(root, `${SDK_PARENT}/${tmp}`);
    } catch { /* nothing to remove */ }
    throw e;
  }
  return "copied";
}

export { DEFAULT_SDK_DIR };
