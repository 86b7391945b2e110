/**
 * The `rpc.discover` document of each plugin's current `plugin.wasm`,
 * obtained by calling it and kept by file hash, so a document is fetched once
 * per version of a plugin: in memory, and on disk in the world
 * (`discover_store.ts`), so a host start does not run the plugins again. A
 * version whose discovery failed because of the plugin itself (an answer
 * that is not a valid document, an error answer, or a process that ended
 * without an answer: a trap, an exit, a limit of its own) keeps that failure: asking again would
 * get the same answer. A failure the plugin is not to blame for (the core
 * stopped waiting, a limit of the world refused the start, the sandbox was
 * lost, a kill) is tried again at the next look. Each failure is said once
 * per host and version: one line to `report` and a `discover-failed` journal
 * event.
 *
 * @module
 */

import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { ErrorCode } from "../../rpc/errors.ts";
import { InvalidDocument } from "./discover_document.ts";
import type { DiscoverOutcome, DiscoverStore } from "./discover_store.ts";
import type { FileHashes } from "../cache/file_hash.ts";
import type { World } from "../world/world.ts";
import { CoreCallFailed } from "../calls/call_as_core.ts";
import { noDocument, undocumented } from "./no_document.ts";

/**
 * Calls `<plugin>.rpc.discover` and resolves with the checked document
 * (`checkedDocument`), or rejects with the error message or an `InvalidDocument`.
 */
export type Discover = (plugin: string) => Promise<OpenRpcDocument>;

/** A version's discovery failed before (kept on disk): its error, as it was then. */
export class DiscoverFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DiscoverFailed";
  }
}

/** Where discovery outcomes are kept and failures said (all optional: a bare cache in memory). */
export interface PluginDocsOptions {
  /** The outcomes on disk, by file hash. */
  store?: DiscoverStore;
  /** Journals `discover-failed`. */
  journal?: { coreEvent(event: string, fields?: Record<string, unknown>): unknown };
  /** Says a failure in one line (the host's stderr). */
  report?: (line: string) => void;
}

/**
 * The failure to keep for a version, or null when it is not the plugin's
 * own (tried again): an invalid document, the plugin's own error answer, or
 * an exit without an answer that was neither a kill nor the loss of its
 * sandbox. A time-out or a limit of the world is not kept.
 */
export function keptFailure(e: unknown): DiscoverOutcome | null {
  if (e instanceof InvalidDocument) return { error: e.message, problems: e.problems };
  if (e instanceof DiscoverFailed) return { error: e.message };
  if (!(e instanceof CoreCallFailed)) return null;
  if (e.code === "timeout" || e.code === ErrorCode.LimitReached) return null;
  if (e.code === ErrorCode.NoAnswer) {
    const { status, trap } = e.exit ?? {};
    if (status === "killed") return null;
    if (typeof trap === "string" && trap.startsWith("the sandbox was lost")) return null;
  }
  return { error: e.message };
}

/** Interface documents by plugin file hash. */
export class PluginDocs {
  private byHash = new Map<string, Promise<OpenRpcDocument>>();
  /** Versions whose failure this host has said already, by plugin. */
  private said = new Set<string>();
  /** Versions whose failure this host read from the store (found by an earlier host). */
  private fromStore = new Set<string>();

  /**
   * @param world the world of the plugins
   * @param discover how to call `rpc.discover`
   * @param hashes the host's file hashes
   */
  constructor(
    private world: World,
    private discover: Discover,
    private hashes: FileHashes,
    private opts: PluginDocsOptions = {},
  ) {}

  /** The SHA-256 of a plugin's current `plugin.wasm`. */
  async hash(plugin: string): Promise<string> {
    return await this.hashes.hash(this.world.pluginWasm(plugin));
  }

  /**
   * The document of a plugin's current version. A failure is said once per
   * host, plugin and version, whoever ran the discovery (a placed candidate,
   * another plugin of the same file, an earlier host).
   */
  async get(plugin: string): Promise<OpenRpcDocument> {
    const hash = await this.hash(plugin);
    try {
      return await this.once(hash, () => this.fetch(plugin, hash, () => this.discover(plugin)));
    } catch (e) {
      this.say(plugin, hash, e);
      throw e;
    }
  }

  /**
   * Runs `discover` for the file of `hash` (a candidate being placed)
   * unless its outcome is known; keeps what it came to, so the version
   * placed is not discovered again when it becomes current, nor at a host
   * start. Its failure is the caller's to say (an activation's answer).
   */
  async discoverFile(
    plugin: string,
    hash: string,
    discover: () => Promise<OpenRpcDocument>,
  ): Promise<OpenRpcDocument> {
    return await this.once(hash, () => this.fetch(plugin, hash, discover));
  }

  /** The outcome for `hash`, made by `make` unless known (a failure not kept is forgotten). */
  private once(hash: string, make: () => Promise<OpenRpcDocument>): Promise<OpenRpcDocument> {
    let doc = this.byHash.get(hash);
    if (!doc) {
      doc = make();
      this.byHash.set(hash, doc);
      doc.catch((e) => {
        if (!keptFailure(e)) this.byHash.delete(hash);
      });
    }
    return doc;
  }

  private async fetch(
    plugin: string,
    hash: string,
    discover: () => Promise<OpenRpcDocument>,
  ): Promise<OpenRpcDocument> {
    const { store } = this.opts;
    const kept = store?.read(plugin, hash);
    if (kept) {
      if ("document" in kept) return kept.document;
      const e = kept.problems
        ? new InvalidDocument(plugin, kept.problems)
        : new DiscoverFailed(kept.error);
      this.fromStore.add(hash);
      throw e;
    }
    try {
      const document = await discover();
      this.keep(hash, { document });
      return document;
    } catch (e) {
      // A plugin without a document (-32601, or exit 0 without an answer) is
      // no failure: it has no methods, kept as such for this version.
      const why = undocumented(e);
      if (why !== null) {
        const document = noDocument(plugin, why);
        this.keep(hash, { document });
        return document;
      }
      const failure = keptFailure(e);
      if (failure) this.keep(hash, failure);
      throw e;
    }
  }

  private keep(hash: string, outcome: DiscoverOutcome): void {
    this.opts.store?.write(hash, outcome, (e) => {
      this.opts.journal?.coreEvent("discover-not-kept", { hash, error: String(e) });
    });
  }

  /** Says a failed discovery once per host, plugin and version: one line, one journal event. */
  private say(plugin: string, hash: string, e: unknown): void {
    const key = `${plugin} ${hash}`;
    if (this.said.has(key)) return;
    this.said.add(key);
    const cached = this.fromStore.has(hash);
    const error = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ");
    const kept = cached || keptFailure(e) !== null;
    this.opts.journal?.coreEvent("discover-failed", { plugin, hash, error, kept, cached });
    this.opts.report?.(
      `sausage: ${plugin} has no methods: its rpc.discover failed${
        cached ? " (when this version was first run)" : ""
      }: ${error}${
        kept
          ? `; not run again for this version (place a new one, or delete state/core/discovered/${hash}.json)`
          : "; tried again at the next look"
      }`,
    );
  }
}
