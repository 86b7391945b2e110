/**
 * Turns a component file into what a sandbox runs, once per SHA-256 of the
 * file, kept on disk under the cache folder so no call pays for it. Two
 * engines: a component whose main core module imports only
 * `wasi_snapshot_preview1` (or a plain preview-1 core module) runs on our own
 * binding (`sandbox/preview1/`): the entry is that main module alone. Any
 * other component runs on jco's glue: the entry is jco's transpiled glue and
 * core modules. Either way the core modules are made preemptible
 * (`wasm/preempt.ts`) and import their memory. `SAUSAGE_ENGINE=jco` forces
 * jco's path for components. The key is the file's hash and the engine
 * identity (jco, Deno and V8 versions, our format), so an upgrade never
 * loads stale code; `cache_entries.ts` keeps entries whole and the cache
 * within its bound.
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { FileHashes } from "./file_hash.ts";
import { sha256 } from "./sha256.ts";
import { componentsRoot, evict, verifyEntry, writeEntry } from "./cache_entries.ts";

import { ASYNC_IMPORTS } from "../../sandbox/wasi/async_imports.ts";
import { instrumentModule, type PreemptStats } from "../../wasm/preempt.ts";
import { importMemory } from "../../wasm/import_memory.ts";
import { withoutNodeProbes } from "./glue_text.ts";
import { mainModuleOf } from "../../wasm/main_module.ts";
import { listImports } from "../../wasm/import_list.ts";
import {
  PREVIEW1_FUNCTIONS,
  PREVIEW1_MAIN,
  PREVIEW1_MODULE,
} from "../../sandbox/preview1/names.ts";
import { isBound } from "../../sandbox/canonical_abi/wit.ts";

/** Which engine runs a component: our preview-1 binding, or jco's glue. */
export type Engine = "p1" | "jco";

/** The version of the preview-1 entries' layout and binding; part of their cache key. */
const PREVIEW1_VERSION = 1;

/** The choice when `SAUSAGE_ENGINE` is unset: each component takes our binding when it can. */
const DEFAULT_CHOICE: "auto" | "jco" = "auto";

/**
 * The engine `SAUSAGE_ENGINE` asks for: "jco" forces jco's glue for every
 * component; "p1" lets each component take our binding when its main module
 * can; unset, {@link DEFAULT_CHOICE}.
 */
export function engineChoice(): "auto" | "jco" {
  let asked: string | undefined;
  try {
    asked = Deno.env.get("SAUSAGE_ENGINE");
  } catch { /* no permission to read it */ }
  return asked === "jco" ? "jco" : asked === "p1" ? "auto" : DEFAULT_CHOICE;
}

/**
 * The main core module of a file when our preview-1 binding can run it: a
 * plain core module, or a component whose main module imports nothing but
 * preview-1 functions, the WASI 0.2 functions the binding has at the
 * canonical-ABI level (an SDK plugin's: `sandbox/canonical_abi/`) and
 * a memory; null when the file needs jco's glue.
 * Throws for a core module that imports anything else (nothing can run it).
 */
export function preview1MainOf(bytes: Uint8Array): Uint8Array | null {
  let main;
  try {
    main = mainModuleOf(bytes);
  } catch {
    return null;
  }
  let other;
  try {
    other = listImports(main.bytes).find((i) =>
      i.kind !== "memory" &&
      !(i.module === PREVIEW1_MODULE && i.kind === "function" && PREVIEW1_FUNCTIONS.has(i.name)) &&
      !(main.kind === "component" && i.kind === "function" && isBound(i.module, i.name))
    );
  } catch {
    return null; // unreadable: jco's path reports it
  }
  if (!other) return main.bytes;
  if (main.kind === "module") {
    throw new Error(
      `a core module that imports ${other.module}.${other.name}, which Sausage does not ` +
        `provide: a plugin.wasm that is a core module may import only ${PREVIEW1_MODULE} ` +
        "(WASI preview 1); anything else must be a WASI command component",
    );
  }
  return null;
}

/** The version of the instrumentation; part of the cache key. */
const PREEMPT_VERSION = 9;

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
  /** The folder with `plugin.js` and the core modules, or (engine `p1`) the main module. */
  dir: string;
  /** Which engine runs it. */
  engine: Engine;
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
  private p1Root = "";
  private engine: string;
  private p1Engine: string;
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
    /** "jco" forces jco's glue for every component (default: `SAUSAGE_ENGINE`). */
    private choice: "auto" | "jco" = engineChoice(),
  ) {
    this.engine = engineIdentity(preempt);
    this.p1Engine = [
      `preview1 ${PREVIEW1_VERSION}`,
      `deno ${Deno.version.deno}`,
      `v8 ${Deno.version.v8}`,
      preempt ? `preempt ${PREEMPT_VERSION}` : "plain",
    ].join(", ");
    const root = async (engine: string) =>
      `${componentsRoot(cache)}/${(await sha256(new TextEncoder().encode(engine))).slice(0, 16)}`;
    this.ready = Promise.all([root(this.engine), root(this.p1Engine)]).then(([jco, p1]) => {
      this.root = jco;
      this.p1Root = p1;
    });
  }

  /** The folder of this engine's entries. */
  async folder(): Promise<string> {
    await this.ready;
    return this.root;
  }

  /**
   * Loads a component file; transpiles it unless its hash is known.
   * @param info what a `stat` of `path` said just now, if the caller made one
   */
  async load(path: string, info?: Deno.FileInfo): Promise<Compiled> {
    const hash = await this.hashes.hash(path, info);
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
    let main: Uint8Array | null = null;
    try {
      main = this.choice === "jco" ? null : preview1MainOf(bytes);
    } catch (e) {
      throw new Error(`${path} is ${e instanceof Error ? e.message : e}`);
    }
    if (main) return this.preparePreview1(hash, main);
    const dir = `${this.root}/${hash}`;
    if (await verifyEntry(dir, this.engine)) return { hash, dir, engine: "jco" };
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
    await this.install(dir, this.engine, out);
    return { hash, dir, engine: "jco" };
  }

  /** The preview-1 entry of a main module: the module made preemptible, importing its memory. */
  private async preparePreview1(hash: string, main: Uint8Array): Promise<Compiled> {
    const dir = `${this.p1Root}/${hash}`;
    if (await verifyEntry(dir, this.p1Engine)) return { hash, dir, engine: "p1" };
    let [content, stats]: [Uint8Array, PreemptStats | { error: string } | null] = [main, null];
    if (this.preempt) [content, stats] = preemptible(main);
    content = memoryImported(content);
    await this.install(dir, this.p1Engine, [
      [PREVIEW1_MAIN, content],
      ["preempt.json", new TextEncoder().encode(JSON.stringify({ [PREVIEW1_MAIN]: stats }))],
    ]);
    return { hash, dir, engine: "p1" };
  }

  /** Writes an entry's files into a fresh folder and renames it into place at `dir`. */
  private async install(dir: string, engine: string, out: [string, Uint8Array][]): Promise<void> {
    const tmp = `${dir}.tmp-${crypto.randomUUID()}`;
    await Deno.mkdir(tmp, { recursive: true });
    await writeEntry(tmp, engine, out);
    // A stale or damaged entry in the way is moved aside first; if another
    // host put a whole one there meanwhile, ours is dropped.
    if (!await verifyEntry(dir, engine)) {
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
