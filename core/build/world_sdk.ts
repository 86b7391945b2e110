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

/** Where the SDK copy lives, relative to the world folder. */
export const WORLD_SDK = "plugins/cargo/sdk";

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

/** The files under `root`, relative and sorted (none when it does not exist). */
async function files(root: string, sub = ""): Promise<string[]> {
  const names: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sub ? `${root}/${sub}` : root));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  for (const e of entries) {
    if (skipped(e.name)) continue;
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory) names.push(...await files(root, rel));
    else if (e.isFile) names.push(rel);
  }
  return names.sort();
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A hash of the SDK files under `root`: their paths and contents. */
export async function sdkHash(root: string): Promise<string> {
  const parts: string[] = [];
  for (const rel of await files(root)) {
    parts.push(`${rel}\n${await sha256Hex(await Deno.readFile(`${root}/${rel}`))}`);
  }
  return await sha256Hex(new TextEncoder().encode(parts.join("\n")));
}

/**
 * Makes `to` a copy of the SDK files of `from` unless it already holds the
 * same files; resolves with what it did. The new copy is made beside `to`
 * and renamed into place, so a build never sees half a copy.
 */
export async function syncSdk(from: string, to: string): Promise<"copied" | "unchanged"> {
  const [want, have] = await Promise.all([sdkHash(from), sdkHash(to)]);
  if (want === have) return "unchanged";
  const tmp = `${to}.tmp-${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(tmp, { recursive: true });
    for (const rel of await files(from)) {
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
