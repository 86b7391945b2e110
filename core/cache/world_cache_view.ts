/**
 * What of the compile cache a world's sandboxes may read: only the entries
 * this world loads. The cache holds every world's transpiled components;
 * a sandbox's `--allow-read` names this world's view folder,
 * `<cache>/views/<sha256 of the world's path, 16 hex>/`, instead of the whole
 * cache, and each entry a host loads is linked into it (hard links of the
 * entry's files, a copy where links fail), so a guest of one world cannot
 * read another world's components. The view is made afresh at each host
 * start (an entry costs a few links once per start: nothing on the call
 * path); linked files outlive an eviction of their entry until then.
 *
 * @module
 */

import type { Compiled, ComponentCache } from "./component_cache.ts";
import { sha256Sync } from "./file_hash.ts";

/** The view folder of the world at `root` (an absolute real path) in `cache`. */
export function worldViewFolder(cache: string, root: string): string {
  const key = sha256Sync(root).slice(0, 16);
  return `${cache}/views/${key}`;
}

/** The cache as one world's sandboxes see it. */
export class WorldCacheView {
  /** The folder sandboxes of this world may read. */
  readonly folder: string;
  private linked = new Map<string, Promise<string>>();

  /**
   * Clears what a previous host of the world left in its view.
   * @param cache the cache folder
   * @param root the world (an absolute real path)
   * @param inner the compile cache whose entries are linked in
   */
  constructor(cache: string, root: string, private inner: Pick<ComponentCache, "load">) {
    this.folder = worldViewFolder(cache, root);
    try {
      Deno.removeSync(this.folder, { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    Deno.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
  }

  /** Loads a component (as the cache does) and returns its entry in this world's view. */
  async load(path: string, info?: Deno.FileInfo): Promise<Compiled> {
    const compiled = await this.inner.load(path, info);
    let dir = this.linked.get(compiled.hash);
    if (!dir) {
      dir = this.link(compiled);
      this.linked.set(compiled.hash, dir);
      dir.catch(() => this.linked.delete(compiled.hash));
    }
    return { hash: compiled.hash, dir: await dir, engine: compiled.engine };
  }

  /** Links the files of an entry into the view (made aside, then renamed into place). */
  private async link(compiled: Compiled): Promise<string> {
    const dir = `${this.folder}/${compiled.hash}`;
    try {
      await Deno.lstat(dir);
      return dir; // linked by an earlier load of this host
    } catch { /* not yet */ }
    const tmp = `${dir}.tmp-${crypto.randomUUID()}`;
    await Deno.mkdir(tmp);
    try {
      for await (const e of Deno.readDir(compiled.dir)) {
        if (!e.isFile) continue;
        const from = `${compiled.dir}/${e.name}`;
        await Deno.link(from, `${tmp}/${e.name}`).catch(() =>
          Deno.copyFile(from, `${tmp}/${e.name}`)
        );
      }
      await Deno.rename(tmp, dir);
    } catch (e) {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      try {
        await Deno.lstat(dir);
        return dir; // another load made it first
      } catch {
        throw e;
      }
    }
    return dir;
  }
}
