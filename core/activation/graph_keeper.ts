/**
 * The graph (section 10.4): every plugin's `rpc.discover` document by file
 * hash, fetched in the background at start; a watcher on
 * `plugins/*\/plugin.wasm` that picks up copies by hand and journals the
 * imports they break; `graph.json` and `graph.dot` for `/proc/core/`.
 *
 * @module
 */

import { buildGraph, type Graph, graphToDot } from "../../rpc/graph.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import type { Journal } from "../journal/journal.ts";
import type { PluginDocs } from "./plugin_docs.ts";
import type { World } from "../world/world.ts";

/** How long file events settle before the graph is recomputed. */
const SETTLE_MS = 150;

/** A plugin without a usable document still appears, with no methods. */
function emptyDocument(name: string): OpenRpcDocument {
  return { openrpc: "1.2.6", info: { title: name, version: "0" }, methods: [] };
}

/** What a snapshot of the world's plugins holds, each by plugin name. */
export interface Snapshot {
  /** The documents (a plugin without a usable one gets an empty one). */
  docs: Map<string, OpenRpcDocument>;
  /** The hashes of the plugin files. */
  hashes: Map<string, string>;
  /** Why a plugin has an empty document: its `rpc.discover` failed or answered an invalid one. */
  errors: Map<string, string>;
}

/** Keeps the documents and the graph of a world up to date. */
export class GraphKeeper {
  /** The hash of each plugin's file as the core last knew it (installed or seen). */
  private hashes = new Map<string, string>();
  private watcher: Deno.FsWatcher | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private world: World, private docs: PluginDocs, private journal: Journal) {}

  /** The current documents (a plugin whose `rpc.discover` fails gets an empty one) and file hashes. */
  async snapshot(): Promise<Snapshot> {
    const docs = new Map<string, OpenRpcDocument>();
    const hashes = new Map<string, string>();
    const errors = new Map<string, string>();
    await Promise.all(
      this.world.pluginNames().map(async (name) => {
        let hash: string;
        try {
          hash = await this.docs.hash(name);
        } catch {
          return; // no plugin.wasm: not a plugin (yet)
        }
        hashes.set(name, hash);
        try {
          docs.set(name, await this.docs.get(name));
        } catch (e) {
          docs.set(name, emptyDocument(name));
          errors.set(name, e instanceof Error ? e.message : String(e));
        }
      }),
    );
    return { docs, hashes, errors };
  }

  /** The graph now. */
  async graph(): Promise<Graph> {
    const { docs, hashes, errors } = await this.snapshot();
    return buildGraph(docs, hashes, errors);
  }

  /** `graph.json` and `graph.dot`. */
  async files(): Promise<{ json: Graph; dot: string }> {
    const g = await this.graph();
    return { json: g, dot: graphToDot(g) };
  }

  /** Tells the keeper that the core itself installs this file for `plugin` (no "copied by hand" entry). */
  expect(plugin: string, hash: string): void {
    this.hashes.set(plugin, hash);
  }

  /** Fetches every document in the background and starts watching `plugins/`. */
  start(): void {
    this.refresh(false);
    try {
      const plugins = `${this.world.root}/plugins`;
      Deno.mkdirSync(plugins, { recursive: true });
      // A link in place of plugins/ would have the core watch a folder outside the world.
      if (Deno.realPathSync(plugins) !== plugins) {
        throw new Error(`${plugins} is a link, not a folder of the world: not watched`);
      }
      this.watcher = Deno.watchFs(plugins, { recursive: true });
    } catch (e) {
      this.journal.coreEvent("watch-failed", { error: String(e) });
      return;
    }
    (async () => {
      try {
        for await (const ev of this.watcher!) {
          const wasm = ev.paths.filter((p) => p.endsWith("/plugin.wasm"));
          if (wasm.length === 0) continue;
          // A copy by hand: the next call checks the file rather than wait for its recheck.
          for (const p of wasm) {
            this.world.replaced(p.slice(0, -"/plugin.wasm".length).split("/").pop()!);
          }
          clearTimeout(this.timer);
          this.timer = setTimeout(() => this.refresh(true), SETTLE_MS);
        }
      } catch { /* closed */ }
    })();
  }

  /** Re-reads the hashes; journals copies by hand and the imports they break. */
  private async refresh(report: boolean): Promise<void> {
    let g: Graph;
    try {
      g = await this.graph();
    } catch (e) {
      this.journal.coreEvent("graph-failed", { error: String(e) });
      return;
    }
    const changed: string[] = [];
    for (const p of g.plugins) {
      if (p.hash === null) continue;
      const before = this.hashes.get(p.name);
      this.hashes.set(p.name, p.hash);
      if (before !== p.hash) changed.push(p.name);
    }
    if (!report) return;
    for (const name of changed) {
      this.journal.coreEvent("plugin-changed", { plugin: name, checked: false });
      for (const imp of g.imports) {
        if ((imp.consumer === name || imp.provider === name) && imp.status !== "ok") {
          this.journal.coreEvent("broken-import", { ...imp });
        }
      }
    }
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.timer);
    try {
      this.watcher?.close();
    } catch { /* closed */ }
  }
}
