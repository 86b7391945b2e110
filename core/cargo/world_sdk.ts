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
import { folderHash, listFiles } from "../folder_hash.ts";

/** Where the SDK copy lives, relative to the world folder. */
const WORLD_SDK = "plugins/cargo/sdk";

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
 * Makes `to` a copy of the SDK files of `from` unless it already holds the
 * same files; resolves with what it did. The new copy is made beside `to`
 * and renamed into place, so a build never sees half a copy. With `stamp` (a
 * file outside the copy that guests cannot write), a host that finds both
 * folders as the last one left them skips the comparison.
 */
export async function syncSdk(
  from: string,
  to: string,
  stamp?: string,
): Promise<"copied" | "unchanged"> {
  if (!stamp) return await copyUnlessEqual(from, to);
  const seen = await readStamp(stamp);
  // The source's print is taken first: if it changes while this runs, the
  // stamp does not match it next time, and that host compares again.
  const [fromPrint, toPrint] = await Promise.all([sdkStatPrint(from), sdkStatPrint(to)]);
  if (seen && seen[0] === fromPrint && seen[1] === toPrint) return "unchanged";
  const did = await copyUnlessEqual(from, to);
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
    const i = Deno.statSync(`${root}/${rel}`);
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

/** Copies the SDK unless the copy holds the same files (by a hash of them). */
async function copyUnlessEqual(from: string, to: string): Promise<"copied" | "unchanged"> {
  const [want, have] = await Promise.all([sdkHash(from), sdkHash(to)]);
  if (want === have) return "unchanged";
  const tmp = `${to}.tmp-${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(tmp, { recursive: true });
    for (const rel of await listFiles(from, skipped)) {
      const cut = rel.lastIndexOf("/");
      if (cut > 0) await Deno.mkdir(`${tmp}/${rel.slice(0, cut)}`, { recursive: true });
      await Deno.copyFile(`${from}/${rel}`, `${tmp}/${rel}`);
    }
    const old = `${to}.old-${crypto.randomUUID()}`;
    await Deno.rename(to, old).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    await Deno.rename(tmp, to);
    await Deno.remove(old, { recursive: true }).catch(() => {});
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
  return "copied";
}

export { DEFAULT_SDK_DIR };
