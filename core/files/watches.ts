/**
 * Subscriptions to file changes (PROTOCOL 5.2): `core.watch {paths}` gives a
 * process `core.changed` notifications for world paths (through the host's
 * file watcher) and `/proc` and `/run` paths (compared every 250 ms).
 * Coalesced per watch (100 ms, each path once, at most 64), bounded per
 * process (`watches`), released when the process ends.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import { optionalParam } from "../../rpc/params.ts";
import type { CoreMethod } from "../calls/core_method.ts";
import type { Caller, Process } from "../processes/process.ts";
import { WorldWatcher } from "./world_watcher.ts";
import type { HostFs } from "../../vfs/host_fs.ts";

/** How long the changes of one watch gather before they go out. */
export const COALESCE_MS = 100;
/** How often `/proc` and `/run` paths are compared. */
export const POLL_MS = 250;
/** The most paths one notification names. */
const MAX_PATHS = 64;

/** One `core.watch`. */
interface Watch {
  id: number;
  owner: Process;
  paths: string[];
  pending: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
  /** The world watchers it holds (closed with it). */
  world: WorldWatcher[];
}

/** What the watches need of the host. */
export interface WatchDeps {
  /** The world folder. */
  root: string;
  /** A fingerprint of a `/proc` or `/run` path (its content or listing); null when it is not there. */
  fingerprint(path: string): Promise<string | null>;
  /** `watches`: the most paths one process watches. */
  max: number;
}

/**
 * What a `/proc` or `/run` path is now, to compare: a folder's names, a
 * file's content; null when it is not there.
 */
export async function fingerprint(fs: HostFs, path: string): Promise<string | null> {
  try {
    const l = await fs.list(path);
    if (l.entries) return "dir:" + l.entries.map((e) => e.name).join("/");
    return "file:" + new TextDecoder().decode(await fs.read(path));
  } catch {
    return null;
  }
}

/** A path under `/proc` or `/run`: compared by polling. */
function isVirtual(path: string): boolean {
  return /^\/(proc|run)(\/|$)/.test(path);
}

/** The watches of a host. */
export class Watches {
  private watches = new Map<number, Watch>();
  private next = 0;
  /** The last fingerprint of each polled path, per watch. */
  private seen = new Map<number, Map<string, string | null>>();
  private poller: ReturnType<typeof setInterval> | null = null;
  private polling = false;

  constructor(private deps: WatchDeps) {}

  private pathsOf(p: Process): number {
    let n = 0;
    for (const w of this.watches.values()) if (w.owner === p) n += w.paths.length;
    return n;
  }

  /** `core.watch {paths}`: a new watch of `p`. */
  async watch(p: Process, paths: string[]): Promise<{ watch: number }> {
    if (paths.length === 0) throw new HostError("invalid-params", `"paths" must name a path`);
    if (p.hasEnded) throw new HostError("invalid-request", `${p.pid} has ended`);
    if (this.pathsOf(p) + paths.length > this.deps.max) {
      throw new HostError(
        "limit-reached",
        `${p.pid} would watch more than ${this.deps.max} paths (the limit watches of config/limits.json)`,
        { limit: "watches", value: this.deps.max },
      );
    }
    const id = ++this.next;
    const w: Watch = { id, owner: p, paths, pending: new Set(), timer: null, world: [] };
    try {
      for (const path of paths) {
        if (!path.startsWith("/")) {
          throw new HostError(
            "invalid-params",
            `"${path}" is not absolute (a path of the world, /proc or /run)`,
          );
        }
        if (path === "/self" || path.startsWith("/self/")) {
          throw new HostError(
            "invalid-params",
            `watch /proc/${p.pid}${path.slice(5)}, not ${path}`,
          );
        }
        if (!isVirtual(path)) {
          w.world.push(
            WorldWatcher.open(this.deps.root, path, (changed) => this.changed(w, changed)),
          );
        }
      }
    } catch (e) {
      for (const ww of w.world) ww.close();
      throw e;
    }
    this.watches.set(id, w);
    const virtual = paths.filter(isVirtual);
    if (virtual.length) {
      const seen = new Map<string, string | null>();
      for (const path of virtual) seen.set(path, await this.deps.fingerprint(path));
      // The process may have ended (or unwatched) meanwhile: nothing is left behind.
      if (!this.watches.has(id)) throw new HostError("invalid-request", `${p.pid} has ended`);
      this.seen.set(id, seen);
      this.poller ??= setInterval(() => this.poll(), POLL_MS);
    }
    return { watch: id };
  }

  /** Compares each polled path with what it was. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [id, seen] of this.seen) {
        const w = this.watches.get(id);
        if (!w) continue;
        for (const [path, before] of seen) {
          const now = await this.deps.fingerprint(path);
          if (now === before) continue;
          seen.set(path, now);
          this.changed(w, path);
        }
      }
    } finally {
      this.polling = false;
    }
  }

  /** A path of watch `w` changed: sent with the others of the next 100 ms. */
  private changed(w: Watch, path: string): void {
    if (!this.watches.has(w.id)) return;
    w.pending.add(path);
    w.timer ??= setTimeout(() => {
      w.timer = null;
      const paths = [...w.pending];
      w.pending.clear();
      if (!this.watches.has(w.id) || w.owner.hasEnded) return;
      w.owner.deliver({
        jsonrpc: "2.0",
        method: "core.changed",
        params: paths.length > MAX_PATHS
          ? { watch: w.id, paths: paths.slice(0, MAX_PATHS), more: true }
          : { watch: w.id, paths },
      });
    }, COALESCE_MS);
  }

  /** Ends watch `id` of `p` (false when it has no such watch). */
  unwatch(p: Process, id: number): boolean {
    const w = this.watches.get(id);
    if (!w || w.owner !== p) return false;
    this.watches.delete(id);
    this.seen.delete(id);
    for (const ww of w.world) ww.close();
    if (w.timer !== null) clearTimeout(w.timer);
    if (this.seen.size === 0 && this.poller !== null) {
      clearInterval(this.poller);
      this.poller = null;
    }
    return true;
  }

  /** `p` ended: each of its watches goes. */
  end(p: Process): void {
    for (const w of [...this.watches.values()]) if (w.owner === p) this.unwatch(p, w.id);
  }

  /** How many watches are open (all processes). */
  get size(): number {
    return this.watches.size;
  }

  /** Ends every watch (the host stops). */
  close(): void {
    for (const w of [...this.watches.values()]) this.unwatch(w.owner, w.id);
  }

  /** `core.watch`, `core.unwatch`. */
  methods(): Map<string, CoreMethod> {
    const proc = (caller: Caller, method: string): Process => {
      if (!("pid" in caller)) {
        throw new HostError(
          "invalid-request",
          `watches belong to processes: call core.${method} from a plugin`,
        );
      }
      return caller as Process;
    };
    return new Map<string, CoreMethod>([
      ["watch", (caller, params) => {
        const paths = params.paths;
        if (!Array.isArray(paths) || !paths.every((x) => typeof x === "string")) {
          throw new HostError("invalid-params", `"paths" must be an array of paths`);
        }
        return this.watch(proc(caller, "watch"), paths);
      }],
      ["unwatch", (caller, params) => {
        const id = optionalParam(params, "watch", "number");
        if (id === undefined || !this.unwatch(proc(caller, "unwatch"), id)) {
          throw new HostError("invalid-params", `no watch ${id} of this process`);
        }
        return {};
      }],
    ]);
  }
}
