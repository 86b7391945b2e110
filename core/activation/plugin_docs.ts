/**
 * The `rpc.discover` document of each plugin's current `plugin.wasm`,
 * obtained by calling it and kept by file hash, so a document is fetched once
 * per version of a plugin. A version whose answer is not a valid document
 * (`InvalidDocument`) keeps that error: asking again would get the same answer.
 *
 * @module
 */

import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { InvalidDocument } from "./discover_document.ts";
import type { FileHashes } from "../cache/file_hash.ts";
import type { World } from "../world/world.ts";

/**
 * Calls `<plugin>.rpc.discover` and resolves with the checked document
 * (`checkedDocument`), or rejects with the error message or an `InvalidDocument`.
 */
export type Discover = (plugin: string) => Promise<OpenRpcDocument>;

/** Interface documents by plugin file hash. */
export class PluginDocs {
  private byHash = new Map<string, Promise<OpenRpcDocument>>();

  /**
   * @param world the world of the plugins
   * @param discover how to call `rpc.discover`
   * @param hashes the host's file hashes
   */
  constructor(private world: World, private discover: Discover, private hashes: FileHashes) {}

  /** The SHA-256 of a plugin's current `plugin.wasm`. */
  async hash(plugin: string): Promise<string> {
    return await this.hashes.hash(this.world.pluginWasm(plugin));
  }

  /** The document of a plugin's current version. */
  async get(plugin: string): Promise<OpenRpcDocument> {
    const hash = await this.hash(plugin);
    let doc = this.byHash.get(hash);
    if (!doc) {
      doc = this.discover(plugin);
      this.byHash.set(hash, doc);
      doc.catch((e) => {
        if (!(e instanceof InvalidDocument)) this.byHash.delete(hash);
      });
    }
    return doc;
  }
}
