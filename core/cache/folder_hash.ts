/**
 * The files of a folder and a hash of them (their paths and contents): the
 * one folder hasher, behind the build cache's source hash
 * (`core/cargo/cached_build.ts`) and the world's SDK copy
 * (`core/cargo/world_sdk.ts`).
 *
 * @module
 */

import { sha256 } from "./sha256.ts";

/** Leaves an entry (and everything under it) out, by its name and its path relative to the root. */
export type SkipEntry = (name: string, rel: string) => boolean;

/** A file under a folder and the hex SHA-256 of its content. */
export interface HashedFile {
  /** Its path relative to the folder. */
  rel: string;
  /** Hex SHA-256 of its bytes. */
  sha256: string;
}

/** The files under `root`, relative and sorted, less skipped entries (none when it does not exist). */
export async function listFiles(root: string, skip: SkipEntry, sub = ""): Promise<string[]> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sub ? `${root}/${sub}` : root));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const names: string[] = [];
  for (const e of entries) {
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (skip(e.name, rel)) continue;
    if (e.isDirectory) names.push(...await listFiles(root, skip, rel));
    else if (e.isFile) names.push(rel);
  }
  return names.sort();
}

/** The files under `root` (as {@linkcode listFiles} finds them), each with the hash of its content. */
export async function hashFiles(root: string, skip: SkipEntry): Promise<HashedFile[]> {
  const out: HashedFile[] = [];
  for (const rel of await listFiles(root, skip)) {
    out.push({ rel, sha256: await sha256(await Deno.readFile(`${root}/${rel}`)) });
  }
  return out;
}

/**
 * The lines a folder hash is made of: each file's path (after `label/` when a
 * label is given) and, on the next line, the hash of its content.
 */
export function digestLines(files: HashedFile[], label?: string): string[] {
  return files.map((f) => `${label === undefined ? f.rel : `${label}/${f.rel}`}\n${f.sha256}`);
}

/** Hex SHA-256 of the files under `root`: their paths and contents. */
export async function folderHash(root: string, skip: SkipEntry): Promise<string> {
  return await sha256(digestLines(await hashFiles(root, skip)).join("\n"));
}
