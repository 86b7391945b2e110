/**
 * What each plugin version's `rpc.discover` came to, kept on disk in the
 * world (`state/core/discovered/<sha256 of plugin.wasm>.json`, the core's
 * and read-only to guests), so that a host start does not run a plugin
 * again to learn what the last one learnt: discovery runs once per version
 * of a plugin. An entry holds the checked document, or why there is none
 * (the plugin ended without an answer, answered an invalid document, or did
 * not answer in time); a new version (another hash) is discovered afresh,
 * and deleting an entry makes the next host try again. Entries are written
 * whole (a temporary file renamed into place) and re-checked when read; the
 * folder keeps the newest {@link MAX_ENTRIES}.
 *
 * @module
 */

import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { checkedDocument } from "./discover_document.ts";

/** The most entries kept; the oldest go first. */
export const MAX_ENTRIES = 512;

/** What one version's discovery came to: its document, or why it has none. */
export type DiscoverOutcome =
  | { document: OpenRpcDocument }
  | { error: string; problems?: string[] };

/** The discovery outcomes of a world's plugin versions, by file hash. */
export class DiscoverStore {
  /**
   * @param where the folder where entries are kept (`state/core/discovered`),
   * asked for when first needed: a host that discovers nothing makes no
   * folder in its world (a test's world stays empty)
   */
  constructor(private where: string | (() => string)) {}

  /** The folder where entries are kept. */
  get folder(): string {
    if (typeof this.where === "function") this.where = this.where();
    return this.where;
  }

  /** The entry's path for `hash` (a SHA-256 in hex: nothing else is a name here). */
  path(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a file hash: ${hash}`);
    return `${this.folder}/${hash}.json`;
  }

  /** The outcome kept for `hash`, or null (none, or one that does not read back whole). */
  read(plugin: string, hash: string): DiscoverOutcome | null {
    let raw: unknown;
    try {
      raw = JSON.parse(Deno.readTextFileSync(this.path(hash)));
    } catch {
      return null;
    }
    if (typeof raw !== "object" || raw === null) return null;
    const entry = raw as Record<string, unknown>;
    if ("document" in entry) {
      try {
        return { document: checkedDocument(plugin, entry.document) };
      } catch {
        return null;
      }
    }
    if (typeof entry.error !== "string") return null;
    const problems = Array.isArray(entry.problems) &&
        entry.problems.every((p) => typeof p === "string")
      ? entry.problems as string[]
      : undefined;
    return problems ? { error: entry.error, problems } : { error: entry.error };
  }

  /** Keeps `outcome` for `hash`; a failure to write is said to `onError`, never thrown. */
  write(hash: string, outcome: DiscoverOutcome, onError: (e: unknown) => void): void {
    try {
      Deno.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      const tmp = `${this.folder}/.${hash}.${crypto.randomUUID()}.tmp`;
      Deno.writeTextFileSync(tmp, JSON.stringify(outcome), { mode: 0o600 });
      Deno.renameSync(tmp, this.path(hash));
      this.prune();
    } catch (e) {
      onError(e);
    }
  }

  /** Removes the oldest entries past {@link MAX_ENTRIES}. */
  private prune(): void {
    const entries: [string, number][] = [];
    for (const e of Deno.readDirSync(this.folder)) {
      if (!e.isFile || !e.name.endsWith(".json")) continue;
      const mtime = Deno.statSync(`${this.folder}/${e.name}`).mtime?.getTime() ?? 0;
      entries.push([e.name, mtime]);
    }
    if (entries.length <= MAX_ENTRIES) return;
    entries.sort((a, b) => a[1] - b[1]);
    for (const [name] of entries.slice(0, entries.length - MAX_ENTRIES)) {
      Deno.removeSync(`${this.folder}/${name}`);
    }
  }
}
