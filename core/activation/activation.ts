/**
 * Activation (sections 10.2–10.3): `core.activate` checks a new version of
 * one or several plugins against their providers and consumers and installs
 * it only when nothing breaks; `core.revert` activates `plugin.prev.wasm` the
 * same way. Running processes keep their version; new calls get the new one.
 *
 * @module
 */

import { checkActivation } from "../../rpc/activation_check.ts";
import { HostError } from "../../rpc/errors.ts";
import { isObject, type JsonObject } from "../../rpc/message.ts";
import { optionalParam, stringParam } from "../../rpc/params.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { resolveGuestPath } from "../../vfs/mount.ts";
import { InvalidDocument } from "./discover_document.ts";
import { NO_DOCUMENT, noDocument, undocumented } from "./no_document.ts";
import { sha256 } from "../cache/sha256.ts";
import { inWorldFolder, readWorldFile, realInside } from "../world/world_files.ts";
import type { GraphKeeper } from "./graph_keeper.ts";
import type { Journal } from "../journal/journal.ts";
import type { CoreMethod } from "../calls/core_method.ts";
import { pluginNameProblem, type World } from "../world/world.ts";

/**
 * Gets the checked `rpc.discover` document of a component file, run as
 * `plugin` (an answer that is not a valid document rejects with `InvalidDocument`).
 */
export type DiscoverFile = (plugin: string, wasm: string) => Promise<OpenRpcDocument>;

/** One plugin to activate: its name and the host path of the new file. */
interface Candidate {
  plugin: string;
  file: string;
}

function invalid(message: string): HostError {
  return new HostError("invalid-params", message);
}

/** Activates and reverts plugins. */
export class Activator {
  constructor(
    private world: World,
    private graph: GraphKeeper,
    private journal: Journal,
    private discoverFile: DiscoverFile,
  ) {}

  /** A guest path of the world (`/state/cargo/builds/7/notes.wasm`) as a host path inside it. */
  private hostPath(path: string): string {
    if (!path.startsWith("/")) {
      throw invalid(
        `"wasm" must be an absolute path in the world, like /state/cargo/builds/1/notes.wasm`,
      );
    }
    let rel: string;
    try {
      rel = resolveGuestPath("", path.slice(1));
    } catch {
      throw invalid(`${path} leaves the world`);
    }
    return realInside(this.world.root, `${this.world.root}/${rel}`, path);
  }

  private candidates(params: JsonObject): Candidate[] {
    const one = (v: unknown, where: string): Candidate => {
      if (!isObject(v) || typeof v.plugin !== "string" || typeof v.wasm !== "string") {
        throw invalid(`${where} needs "plugin" and "wasm" strings`);
      }
      const problem = pluginNameProblem(v.plugin);
      if (problem) throw invalid(problem);
      return { plugin: v.plugin, file: this.hostPath(v.wasm) };
    };
    if (Array.isArray(params.plugins)) {
      if (params.plugins.length === 0) throw invalid(`"plugins" is empty`);
      const list = params.plugins.map((p, i) => one(p, `plugins[${i}]`));
      const names = new Set(list.map((c) => c.plugin));
      if (names.size !== list.length) throw invalid('a plugin appears twice in "plugins"');
      return list;
    }
    return [one(params, "core.activate")];
  }

  /** `core.activate`: checks, then installs; resolves with the new documents by plugin. */
  async activate(params: JsonObject): Promise<Record<string, OpenRpcDocument>> {
    const list = this.candidates(params);
    const force = optionalParam(params, "force", "boolean") ?? false;
    return await this.install(list, force, "activate");
  }

  /** `core.revert`: activates `plugin.prev.wasm`; the current version becomes `plugin.prev.wasm`. */
  async revert(params: JsonObject): Promise<Record<string, OpenRpcDocument>> {
    const plugin = stringParam(params, "plugin");
    const problem = pluginNameProblem(plugin);
    if (problem) throw invalid(problem);
    const prev = `${this.world.pluginDir(plugin)}/plugin.prev.wasm`;
    try {
      Deno.lstatSync(prev);
    } catch {
      throw invalid(
        `${plugin} has no previous version (no plugins/${plugin}/plugin.prev.wasm)`,
      );
    }
    const force = optionalParam(params, "force", "boolean") ?? false;
    return await this.install([{ plugin, file: prev }], force, "revert");
  }

  private async install(
    list: Candidate[],
    force: boolean,
    how: "activate" | "revert",
  ): Promise<Record<string, OpenRpcDocument>> {
    // Stage every file first (read from inside the world, written into the
    // plugin's own folder), so a failure leaves every plugin as it was and
    // the file discovered is the file installed.
    const root = this.world.root;
    const staged = await Promise.all(list.map(async (c) => {
      const bytes = readWorldFile(root, c.file, `the new ${c.plugin}.wasm`);
      const folder = `plugins/${c.plugin}`;
      const tmp = `.plugin.wasm.${crypto.randomUUID()}`;
      const made = !this.world.pluginNames().includes(c.plugin);
      inWorldFolder(root, folder, () => Deno.writeFileSync(tmp, bytes, { createNew: true }));
      return { ...c, folder, tmp, made, hash: await sha256(bytes) };
    }));
    // A refusal leaves the world as it was: the staged copies go, and so do
    // the folders made for new plugins (when nothing else was put in them since).
    const unstage = () => {
      for (const s of staged) {
        try {
          inWorldFolder(root, s.folder, () => Deno.removeSync(s.tmp));
          if (s.made) inWorldFolder(root, "plugins", () => Deno.removeSync(s.plugin));
        } catch { /* already gone, or no longer empty */ }
      }
    };
    const fresh = new Map<string, OpenRpcDocument>();
    try {
      await Promise.all(staged.map(async (s) => {
        try {
          fresh.set(s.plugin, await this.discoverFile(s.plugin, `${root}/${s.folder}/${s.tmp}`));
        } catch (e) {
          // A plugin without a document is activated with no methods (no_document.ts).
          const why = undocumented(e);
          if (why !== null) return void fresh.set(s.plugin, noDocument(s.plugin, why));
          const plugins = list.map((x) => x.plugin);
          if (e instanceof InvalidDocument) {
            throw new HostError(
              "activation-rejected",
              `${s.plugin} was not activated: ${e.message}`,
              {
                plugins,
                problems: [],
                invalidDocument: { plugin: s.plugin, problems: e.problems },
              },
            );
          }
          throw new HostError(
            "activation-rejected",
            `${s.plugin} was not activated: its rpc.discover failed: ${
              e instanceof Error ? e.message : e
            }`,
            { plugins, problems: [] },
          );
        }
      }));
      if (!force) {
        const { docs } = await this.graph.snapshot();
        const check = checkActivation(docs, fresh);
        if (!check.ok) throw new HostError("activation-rejected", check.message, check.data);
      }
    } catch (e) {
      unstage();
      // A version kept out is journaled with why (10.4), whoever asked for it.
      if (e instanceof HostError && e.code === "activation-rejected") {
        this.journal.coreEvent("activation-refused", {
          plugins: list.map((c) => c.plugin),
          how,
          message: e.message,
        });
      }
      throw e;
    }
    for (const s of staged) {
      this.graph.expect(s.plugin, s.hash);
      // Whatever happens to the rename, the next call checks the file again.
      try {
        inWorldFolder(root, s.folder, () => {
          // On revert the current version becomes plugin.prev.wasm and the
          // staged copy of the previous one becomes current; on activate the
          // current one (if any) becomes plugin.prev.wasm.
          const hadCurrent = (() => {
            try {
              Deno.lstatSync("plugin.wasm");
              return true;
            } catch {
              return false;
            }
          })();
          if (hadCurrent) Deno.renameSync("plugin.wasm", "plugin.prev.wasm");
          Deno.renameSync(s.tmp, "plugin.wasm");
        });
      } finally {
        this.world.replaced(s.plugin);
      }
      const document = fresh.get(s.plugin)?.[NO_DOCUMENT] === undefined;
      this.journal.coreEvent(how, { plugin: s.plugin, hash: s.hash, force, document });
    }
    return Object.fromEntries(fresh);
  }

  /**
   * What activating the component at host path `file` as `plugin` would
   * break, without installing it: its `rpc.discover` document, and the
   * refusal's text (consumers that break, or imports of its own), or null
   * when nothing breaks. `cargo.build` says it before anyone activates, and
   * keeps the document with the build. Rejects when the component's
   * `rpc.discover` fails.
   */
  async breaks(
    plugin: string,
    file: string,
  ): Promise<{ document: OpenRpcDocument; refusal: string | null }> {
    const document = await this.discoverFile(plugin, file);
    const { docs } = await this.graph.snapshot();
    const check = checkActivation(docs, new Map([[plugin, document]]));
    return { document, refusal: check.ok ? null : check.message };
  }

  /** `core.activate` and `core.revert`. */
  methods(): Map<string, CoreMethod> {
    return new Map<string, CoreMethod>([
      ["activate", (_caller, params) => this.activate(params)],
      ["revert", (_caller, params) => this.revert(params)],
    ]);
  }
}
