/**
 * `/proc/core/plugins/<name>/client.rs`: the exact code that
 * `import!("<name>")` generates for a plugin's current document. Both come
 * from one generator (`sdk/sausage-plugin-codegen`): the SDK's macro runs it
 * natively, and the host runs it as the `codegen` plugin built from
 * `sdk/codegen-plugin`, so the file and the import are identical by
 * construction.
 *
 * @module
 */

import { cachedBuild } from "../cargo/cached_build.ts";
import type { PluginDocs } from "./plugin_docs.ts";

const CODEGEN_DIR = decodeURIComponent(
  new URL("../../sdk/codegen-plugin", import.meta.url).pathname,
);

/** Runs `codegen.client` from a component file as the core; resolves with its result. */
export type RunCodegen = (wasm: string, params: Record<string, unknown>) => Promise<unknown>;

/** Generates and caches `client.rs` of each plugin document. */
export class ClientSource {
  private byDoc = new Map<string, Promise<string>>();

  constructor(private docs: PluginDocs, private run: RunCodegen) {}

  /** The client source of a plugin's current version. */
  async client(plugin: string): Promise<string> {
    const doc = await this.docs.get(plugin);
    const key = `${plugin}\n${JSON.stringify(doc)}`;
    let source = this.byDoc.get(key);
    if (!source) {
      source = (async () => {
        const wasm = await cachedBuild(CODEGEN_DIR, "codegen", "codegen");
        return String(await this.run(wasm, { name: plugin, document: doc }));
      })();
      this.byDoc.set(key, source);
      source.catch(() => this.byDoc.delete(key));
    }
    return source;
  }
}
