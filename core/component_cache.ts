/**
 * Turns a component file into what a sandbox runs: jco's glue and core
 * modules, transpiled once per SHA-256 of the file, the core modules made
 * preemptible (`wasm/preempt.ts`), and kept on disk under the cache folder,
 * so no call pays for a transpile. The key is the file's hash and the engine
 * identity (jco, Deno and V8 versions, our format), so an upgrade never
 * loads stale code; `cache_entries.ts` keeps entries whole and the cache
 * within its bound.
 *
 * @module
 */

import { cacheDir } from "./paths.ts";
import { FileHashes, sha256 } from "./file_hash.ts";
import { componentsRoot, evict, verifyEntry, writeEntry } from "./cache_entries.ts";

import { ASYNC_IMPORTS } from "../sandbox/wasi/async_imports.ts";
import { instrumentModule, type PreemptStats } from "../wasm/preempt.ts";
import { importMemory } from "../wasm/import_memory.ts";
import { withoutNodeProbes } from "./glue_text.ts";

/** The version of the instrumentation; part of the cache key. */
const PREEMPT_VERSION = 6;

/** The jco version the glue comes from; part of the cache key. */
const JCO_VERSION = "1.12.0";

/**
 * The layout of an entry; bump when it changes (3: main modules import
 * their memory; 4: the glue does not probe for Node, `glue_text.ts`).
 */
const FORMAT_VERSION = 4;

/**
 * What made an entry: a change of any part is another engine, whose entries
 * never mix with this one's.
 */
export function engineIdentity(preempt: boolean): string {
  let h = 0;
  for (const c of ASYNC_IMPORTS.join(",")) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return [
    `jco ${JCO_VERSION}`,
    `deno ${Deno.version.deno}`,
    `v8 ${Deno.version.v8}`,
    `format ${FORMAT_VERSION}`,
    preempt ? `preempt ${PREEMPT_VERSION}` : "plain",
    `async-imports ${h.toString(16)}`,
  ].join(", ");
}

/** A transpiled component, ready to be loaded by a sandbox. */
export interface Compiled {
  /** SHA-256 of the component file, hex. */
  hash: string;
  /** The folder with `plugin.js` and the core modules. */
  dir: string;
}

/**
 * The files of a transpiled component: jco's declarations say a record by
 * name, its `transpile` resolves with `[name, bytes]` pairs.
 */
type TranspiledFiles = Record<string, Uint8Array> | [string, Uint8Array][];

/** The files of a transpiled component as `[name, bytes]` pairs, whichever form jco gave. */
function filePairs(files: TranspiledFiles): [string, Uint8Array][] {
  return Array.isArray(files) ? files : Object.entries(files);
}

/** Transpiles components and remembers the results by file hash. */
export class ComponentCache {
  private byHash = new Map<string, Promise<Compiled>>();

  private root = "";
  private engine: string;
  private ready: Promise<void>;

  /**
   * @param cache the cache folder (defaults to the user's cache folder). The
   * glue depends on the jco version and the list of async imports, so both
   * name the subfolder: a change of either never loads old glue.
   * @param hashes the file hashes (shared with the host's other users)
   */
  constructor(
    private cache = cacheDir(),
    private hashes = new FileHashes(),
    /** Make core modules preemptible (default); false only to measure what that costs. */
    private preempt = true,
  ) {
    this.engine = engineIdentity(preempt);
    this.ready = sha256(new TextEncoder().encode(this.engine)).then((h) => {
      this.root = `${componentsRoot(cache)}/${h.slice(0, 16)}`;
    });
  }

  /** The folder of this engine's entries. */
  async folder(): Promise<string> {
    await this.ready;
    return this.root;
  }

  /** Loads a component file; transpiles it unless its hash is known. */
  async load(path: string): Promise<Compiled> {
    const hash = await this.hashes.hash(path);
    let entry = this.byHash.get(hash);
    if (!entry) {
      entry = Deno.readFile(path).then((bytes) => this.prepare(hash, bytes, path));
      this.byHash.set(hash, entry);
      entry.catch(() => this.byHash.delete(hash));
    }
    return entry;
  }

  private async prepare(hash: string, bytes: Uint8Array, path: string): Promise<Compiled> {
    await this.ready;
    const dir = `${this.root}/${hash}`;
    if (await verifyEntry(dir, this.engine)) return { hash, dir };
    let files: TranspiledFiles;
    // Loaded on first use: jco is large, and most runs find every component cached.
    const { transpile } = await import("@bytecodealliance/jco");
    try {
      ({ files } = await transpile(bytes, {
        name: "plugin",
        instantiation: "async",
        asyncMode: "jspi",
        asyncImports: ASYNC_IMPORTS,
        asyncExports: ["wasi:cli/run#run"],
        ...{ typescript: false }, // not in jco's .d.ts, read by transpile()
      }));
    } catch (e) {
      throw new Error(
        `${path} is not a WASI command component: ${e instanceof Error ? e.message : e}`,
      );
    }
    const out: [string, Uint8Array][] = [];
    const preempt: Record<string, PreemptStats | { error: string } | null> = {};
    for (let [file, content] of filePairs(files)) {
      if (file.endsWith(".wasm") && this.preempt) {
        [content, preempt[file]] = preemptible(content);
      }
      // The main module's memory comes from the sandbox's pool.
      if (file.endsWith(".wasm")) content = memoryImported(content);
      if (file.endsWith(".js")) {
        content = new TextEncoder().encode(withoutNodeProbes(new TextDecoder().decode(content)));
      }
      out.push([file, content]);
    }
    out.push(["preempt.json", new TextEncoder().encode(JSON.stringify(preempt, null, 2))]);
    const tmp = `${dir}.tmp-${crypto.randomUUID()}`;
    await Deno.mkdir(tmp, { recursive: true });
    await writeEntry(tmp, this.engine, out);
    // A stale or damaged entry in the way is moved aside first; if another
    // host put a whole one there meanwhile, ours is dropped.
    if (!await verifyEntry(dir, this.engine)) {
      const aside = `${dir}.tmp-stale-${crypto.randomUUID()}`;
      if (await Deno.rename(dir, aside).then(() => true, () => false)) {
        await Deno.remove(aside, { recursive: true }).catch(() => {});
      }
    }
    try {
      await Deno.rename(tmp, dir);
    } catch {
      await Deno.remove(tmp, { recursive: true }); // another host won the race
    }
    evict(this.cache).catch(() => {}); // keeps the cache within its bound
    return { hash, dir };
  }
}

/**
 * A core module made preemptible, with what was instrumented; a module the
 * rewriter cannot read runs as it is (only the stall backstop covers it),
 * and its record says why.
 */
function preemptible(
  bytes: Uint8Array,
): [Uint8Array, PreemptStats | { error: string } | null] {
  try {
    const out = instrumentModule(bytes);
    return out ? [out.bytes, out.stats] : [bytes, null];
  } catch (e) {
    return [bytes, { error: e instanceof Error ? e.message : String(e) }];
  }
}

/** A core module whose memory is imported, or the module as it is if it cannot be read. */
function memoryImported(bytes: Uint8Array): Uint8Array {
  try {
    return importMemory(bytes)?.bytes ?? bytes;
  } catch {
    return bytes;
  }
}
