/**
 * A worker's copies of the host's compiled components: fetched over NATS
 * by their key (`core/remote/component_shelf.ts`) into the worker's cache
 * folder, every file checked against the SHA-256 its manifest lists, the
 * manifest written last and the folder renamed into place, so a copy is
 * used only whole. Each entry is fetched once, however many processes
 * wait for it. The copies are laid out as the host's compile cache is
 * (`components/<folder>/<hash>`), marked used as they are, and kept within
 * the same bound (`SAUSAGE_CACHE_MIB`, `cache_entries.ts`).
 *
 * @module
 */

import type { NatsClient } from "../core/remote/nats_client.ts";
import type { FetchRequest } from "../core/remote/component_shelf.ts";
import { encode } from "../core/remote/wire.ts";
import { sha256 } from "../core/cache/sha256.ts";
import { componentsRoot, evict, type Manifest } from "../core/cache/cache_entries.ts";

/** How long one fetch request may wait for its reply (ms). */
const FETCH_TIMEOUT_MS = 10_000;

const KEY = /^[A-Za-z0-9_-]{1,100}\.[0-9a-f]{64}$/;
const FILE = /^[A-Za-z0-9_.-]{1,100}$/;

const decoder = new TextDecoder();

/** The component entries of one worker. */
export class ComponentCopies {
  private fetching = new Map<string, Promise<string>>();
  /** When each entry was last marked used (its folder's mtime, which eviction reads). */
  private touched = new Map<string, number>();

  /**
   * @param client the worker's NATS connection
   * @param subject where the host serves fetches
   * @param folder the worker's cache folder (its sandboxes may read it)
   */
  constructor(
    private client: NatsClient,
    private subject: string,
    readonly folder: string,
  ) {}

  /** The local folder of the entry `key`, fetched first if needed. */
  get(key: string): Promise<string> {
    if (!KEY.test(key)) return Promise.reject(new Error(`not a component key: ${key}`));
    let p = this.fetching.get(key);
    if (p && Date.now() - (this.touched.get(key) ?? 0) > 30_000) {
      this.touched.set(key, Date.now());
      const now = new Date();
      p.then((dir) => Deno.utime(dir, now, now)).catch(() => {});
    }
    if (!p) {
      this.touched.set(key, Date.now());
      p = this.ensure(key);
      this.fetching.set(key, p);
      p.catch(() => this.fetching.delete(key)); // the next process tries again
    }
    return p;
  }

  private async ask(req: FetchRequest): Promise<Uint8Array> {
    const reply = await this.client.request(this.subject, encode(req), FETCH_TIMEOUT_MS);
    if (reply.data[0] !== 0) {
      throw new Error(
        `the host would not give ${req.entry}: ${decoder.decode(reply.data.slice(1))}`,
      );
    }
    return reply.data.subarray(1);
  }

  private async whole(dir: string, manifest: Manifest): Promise<boolean> {
    try {
      for (const [name, want] of Object.entries(manifest.files)) {
        const bytes = await Deno.readFile(`${dir}/${name}`);
        if (bytes.length !== want.size || await sha256(bytes) !== want.sha256) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  private async ensure(entry: string): Promise<string> {
    const [folder, hash] = entry.split(".");
    await Deno.mkdir(`${componentsRoot(this.folder)}/${folder}`, { recursive: true });
    const dir = `${componentsRoot(this.folder)}/${folder}/${hash}`;
    const text = decoder.decode(await this.ask({ entry }));
    const manifest = JSON.parse(text) as Manifest;
    if (await this.whole(dir, manifest)) {
      const now = new Date();
      await Deno.utime(dir, now, now).catch(() => {});
      return dir;
    }
    const tmp = `${dir}.tmp-${crypto.randomUUID()}`;
    await Deno.mkdir(tmp, { recursive: true });
    try {
      for (const [file, want] of Object.entries(manifest.files)) {
        if (!FILE.test(file)) throw new Error(`a bad file name in ${entry}: ${file}`);
        const bytes = new Uint8Array(want.size);
        let n = 0;
        while (n < want.size) {
          const chunk = await this.ask({ entry, file, offset: n });
          if (!chunk.length) {
            throw new Error(`${entry}/${file} ended at ${n} of ${want.size} bytes`);
          }
          bytes.set(chunk.subarray(0, want.size - n), n);
          n += chunk.length;
        }
        if (await sha256(bytes) !== want.sha256) {
          throw new Error(`${entry}/${file} arrived with another SHA-256 than its manifest's`);
        }
        await Deno.writeFile(`${tmp}/${file}`, bytes);
      }
      await Deno.writeTextFile(`${tmp}/manifest.json`, text);
      evict(this.folder).catch(() => {}); // within the bound, the least recently used go
      if (!await Deno.rename(tmp, dir).then(() => true, () => false)) {
        // Another worker on this machine (sharing the cache) was first: its copy, if whole.
        if (await this.whole(dir, manifest)) {
          await Deno.remove(tmp, { recursive: true }).catch(() => {});
          return dir;
        }
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        await Deno.rename(tmp, dir);
      }
    } catch (e) {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      throw e;
    }
    return dir;
  }
}
