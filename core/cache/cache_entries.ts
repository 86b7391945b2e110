/**
 * The entries of the compile cache (section 16): one folder per component
 * and engine under `<cache>/components/<engine>/<sha256>/`, each with a
 * `manifest.json` written last that lists its files with their sizes and
 * hashes. An entry is used only when its manifest matches what is on disk;
 * anything else (partial, truncated, corrupted, made by another engine) is
 * a miss. The cache is bounded: least recently used entries go first.
 *
 * @module
 */

import { sha256 } from "./sha256.ts";

/** The default most size of the compile cache: `SAUSAGE_CACHE_MIB` changes it. */
const DEFAULT_CACHE_MIB = 2048;

/** An entry used within this long is never evicted (a host may be about to load it). */
const IN_USE_MS = 60_000;

/** What `manifest.json` holds. */
export interface Manifest {
  /** The engine identity the entry was made for. */
  engine: string;
  /** File name → its size and SHA-256. */
  files: Record<string, { size: number; sha256: string }>;
}

/** One entry, as `sausage cache list` shows it. */
export interface EntryInfo {
  /** The component's SHA-256. */
  hash: string;
  /** Its engine folder. */
  engine: string;
  /** Bytes on disk. */
  size: number;
  /** Last use (ms since the epoch). */
  used: number;
  path: string;
}

/** The compile cache's bound in bytes (`SAUSAGE_CACHE_MIB`, default 2048). */
export function cacheBound(): number {
  const mib = Number(Deno.env.get("SAUSAGE_CACHE_MIB") ?? DEFAULT_CACHE_MIB);
  return (Number.isFinite(mib) && mib > 0 ? mib : DEFAULT_CACHE_MIB) * 2 ** 20;
}

/** The folder of every engine's entries. */
export function componentsRoot(cache: string): string {
  return `${cache}/components`;
}

/** Writes `files` and then their manifest into `dir` (a fresh folder). */
export async function writeEntry(
  dir: string,
  engine: string,
  files: [string, Uint8Array][],
): Promise<void> {
  const manifest: Manifest = { engine, files: {} };
  for (const [name, bytes] of files) {
    await Deno.writeFile(`${dir}/${name}`, bytes);
    manifest.files[name] = { size: bytes.length, sha256: await sha256(bytes) };
  }
  await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest, null, 1));
}

/**
 * True when the entry at `dir` is whole: its manifest names `engine` and
 * every file has the size and hash it lists. Marks it used.
 */
export async function verifyEntry(dir: string, engine: string): Promise<boolean> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
    if (manifest.engine !== engine || typeof manifest.files !== "object") return false;
    for (const [name, want] of Object.entries(manifest.files)) {
      const bytes = await Deno.readFile(`${dir}/${name}`);
      if (bytes.length !== want.size || await sha256(bytes) !== want.sha256) return false;
    }
  } catch {
    return false;
  }
  const now = new Date();
  await Deno.utime(dir, now, now).catch(() => {});
  return true;
}

/** Every entry of every engine, least recently used first. */
export async function listEntries(cache: string): Promise<EntryInfo[]> {
  const out: EntryInfo[] = [];
  const root = componentsRoot(cache);
  for (const engine of await names(root)) {
    for (const hash of await names(`${root}/${engine}`)) {
      const path = `${root}/${engine}/${hash}`;
      try {
        const st = await Deno.stat(path);
        if (!st.isDirectory) continue;
        let size = 0;
        for await (const f of Deno.readDir(path)) {
          size += (await Deno.stat(`${path}/${f.name}`).catch(() => ({ size: 0 }))).size;
        }
        out.push({ hash, engine, size, used: st.mtime?.getTime() ?? 0, path });
      } catch { /* removed meanwhile */ }
    }
  }
  return out.sort((a, b) => a.used - b.used);
}

/**
 * Removes least recently used entries until the cache holds at most
 * `bound` bytes (entries used in the last minute stay). Returns the removed.
 */
export async function evict(cache: string, bound = cacheBound()): Promise<EntryInfo[]> {
  await removeLeftovers(cache);
  const entries = await listEntries(cache);
  let total = entries.reduce((n, e) => n + e.size, 0);
  const removed: EntryInfo[] = [];
  const now = Date.now();
  for (const e of entries) {
    if (total <= bound) break;
    if (now - e.used < IN_USE_MS) continue;
    if (await removeEntry(e.path)) {
      total -= e.size;
      removed.push(e);
    }
  }
  return removed;
}

/** Removes half-made and half-removed folders an interrupted host left, once an hour old. */
async function removeLeftovers(cache: string): Promise<void> {
  const root = componentsRoot(cache);
  const old = Date.now() - 3_600_000;
  for (const engine of await names(root)) {
    try {
      for await (const e of Deno.readDir(`${root}/${engine}`)) {
        if (!e.name.includes(".tmp-") && !e.name.includes(".evicted-")) continue;
        const path = `${root}/${engine}/${e.name}`;
        const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime() ?? Infinity;
        if (mtime < old) await Deno.remove(path, { recursive: true }).catch(() => {});
      }
    } catch { /* removed meanwhile */ }
  }
}

/** Removes every entry; returns how many bytes that freed. */
export async function clearEntries(cache: string): Promise<number> {
  let freed = 0;
  for (const e of await listEntries(cache)) if (await removeEntry(e.path)) freed += e.size;
  return freed;
}

/** Moves an entry aside and deletes it, so no reader sees it half gone. */
async function removeEntry(path: string): Promise<boolean> {
  const aside = `${path}.evicted-${crypto.randomUUID()}`;
  try {
    await Deno.rename(path, aside);
  } catch {
    return false;
  }
  await Deno.remove(aside, { recursive: true }).catch(() => {});
  return true;
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory && !e.name.includes(".tmp-") && !e.name.includes(".evicted-")) {
        out.push(e.name);
      }
    }
  } catch { /* no folder */ }
  return out;
}
