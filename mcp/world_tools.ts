/**
 * The tool list of a world over time: loaded on each `tools/list`, and again
 * when a `plugin.wasm` changes (an activation, a revert, a copy by hand) or
 * `config/mcp.json` does. Whoever listens hears when the tools or the
 * plugins differ from what was last seen, so each MCP session can send
 * `notifications/tools/list_changed` (and `resources/list_changed`).
 *
 * @module
 */

import type { World } from "../core/world/world.ts";
import { loadTools, type ToolList } from "./tool_list.ts";
import type { WorldLink } from "./world_link.ts";

/** How long file events settle before the list is loaded again. */
const SETTLE_MS = 150;

/** What changed since the last list. */
export interface ToolChange {
  tools: boolean;
  plugins: boolean;
}

/** A world's tools, kept current. */
export class WorldTools {
  private last: ToolList | null = null;
  private lastKey = { tools: "", plugins: "" };
  private listeners = new Set<(change: ToolChange) => void>();
  private watchers: Deno.FsWatcher[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param link how to read the world's documents
   * @param world the world whose `plugins/` and `config/` are watched
   */
  constructor(readonly link: WorldLink, private world: World) {}

  /** Calls `f` on every change; returns how to stop. */
  onChange(f: (change: ToolChange) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  /** Loads the list now; tells the listeners when it differs from the last one. */
  async load(): Promise<ToolList> {
    const list = await loadTools(this.link);
    const key = {
      tools: JSON.stringify([...list.byName.values()].map((e) => e.tool)),
      plugins: JSON.stringify(list.plugins),
    };
    const first = this.last === null;
    const change = {
      tools: key.tools !== this.lastKey.tools,
      plugins: key.plugins !== this.lastKey.plugins,
    };
    this.last = list;
    this.lastKey = key;
    if (!first && (change.tools || change.plugins)) {
      for (const f of this.listeners) f(change);
    }
    return list;
  }

  /** The list last loaded, or a new one. */
  current(): Promise<ToolList> {
    return this.last ? Promise.resolve(this.last) : this.load();
  }

  /** Watches `plugins/` (every `plugin.wasm`) and `config/` (`mcp.json`). */
  watch(): void {
    const watch = (dir: string, recursive: boolean, matches: (path: string) => boolean) => {
      const path = `${this.world.root}/${dir}`;
      try {
        // A link in place of the folder would have us watch a folder outside the world.
        if (Deno.realPathSync(path) !== path) return;
        const w = Deno.watchFs(path, { recursive });
        this.watchers.push(w);
        (async () => {
          try {
            for await (const ev of w) {
              if (!ev.paths.some(matches)) continue;
              clearTimeout(this.timer);
              this.timer = setTimeout(() => this.load().catch(() => {}), SETTLE_MS);
            }
          } catch { /* closed */ }
        })();
      } catch { /* no such folder: nothing to watch */ }
    };
    watch("plugins", true, (p) => p.endsWith("/plugin.wasm"));
    watch("config", false, (p) => p.endsWith("/mcp.json"));
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.timer);
    for (const w of this.watchers) {
      try {
        w.close();
      } catch { /* closed */ }
    }
    this.watchers = [];
  }
}
