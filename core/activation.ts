/**
 * Activation (sections 10.2–10.3): `core.activate` checks a new version of
 * one or several plugins against their providers and consumers and installs
 * it only when nothing breaks; `core.revert` activates `plugin.prev.wasm` the
 * same way. Running processes keep their version; new calls get the new one.
 *
 * @module
 */

import { checkActivation } from "../rpc/activation_check.ts";
import { ErrorCode, RpcError } from "../rpc/errors.ts";
import { isObject, type JsonObject } from "../rpc/message.ts";
import type { OpenRpcDocument } from "../rpc/openrpc.ts";
import { resolveGuestPath } from "../vfs/mount.ts";
import { sha256 } from "./file_hash.ts";
import type { GraphKeeper } from "./graph_keeper.ts";
import type { Journal } from "./journal.ts";
import type { CoreMethod } from "./router.ts";
import { pluginNameProblem, type World } from "./world.ts";

/** Gets the `rpc.discover` document of a component file, run as `plugin`. */
export type DiscoverFile = (plugin: string, wasm: string) => Promise<OpenRpcDocument>;

/** One plugin to activate: its name and the host path of the new file. */
interface Candidate {
  plugin: string;
  file: string;
}

function invalid(message: string): RpcError {
  return new RpcError(ErrorCode.InvalidParams, message);
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
    const host = `${this.world.root}/${rel}`;
    let real: string;
    try {
      real = Deno.realPathSync(host);
    } catch {
      throw invalid(`${path} does not exist`);
    }
    if (real !== this.world.root && !real.startsWith(this.world.root + "/")) {
      throw invalid(`${path} leaves the world`);
    }
    return real;
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
    if (params.force !== undefined && typeof params.force !== "boolean") {
      throw invalid(`"force" must be a boolean`);
    }
    return await this.install(list, params.force === true, "activate");
  }

  /** `core.revert`: activates `plugin.prev.wasm`; the current version becomes `plugin.prev.wasm`. */
  async revert(params: JsonObject): Promise<Record<string, OpenRpcDocument>> {
    if (typeof params.plugin !== "string") throw invalid(`"plugin" must be a string`);
    const dir = this.world.pluginDir(params.plugin);
    const prev = `${dir}/plugin.prev.wasm`;
    try {
      Deno.statSync(prev);
    } catch {
      throw invalid(
        `${params.plugin} has no previous version (no plugins/${params.plugin}/plugin.prev.wasm)`,
      );
    }
    return await this.install(
      [{ plugin: params.plugin, file: prev }],
      params.force === true,
      "revert",
    );
  }

  private async install(
    list: Candidate[],
    force: boolean,
    how: "activate" | "revert",
  ): Promise<Record<string, OpenRpcDocument>> {
    const fresh = new Map<string, OpenRpcDocument>();
    await Promise.all(list.map(async (c) => {
      try {
        fresh.set(c.plugin, await this.discoverFile(c.plugin, c.file));
      } catch (e) {
        throw new RpcError(
          ErrorCode.ActivationRejected,
          `${c.plugin} was not activated: its rpc.discover failed: ${
            e instanceof Error ? e.message : e
          }`,
          { plugins: list.map((x) => x.plugin), problems: [] },
        );
      }
    }));
    if (!force) {
      const { docs } = await this.graph.snapshot();
      const check = checkActivation(docs, fresh);
      if (!check.ok) throw new RpcError(ErrorCode.ActivationRejected, check.message, check.data);
    }
    // Stage every file first, so a failure leaves every plugin as it was.
    const staged = await Promise.all(list.map(async (c) => {
      const dir = this.world.pluginDir(c.plugin);
      await Deno.mkdir(dir, { recursive: true });
      const bytes = await Deno.readFile(c.file);
      const tmp = `${dir}/.plugin.wasm.${crypto.randomUUID()}`;
      await Deno.writeFile(tmp, bytes);
      return { ...c, dir, tmp, hash: await sha256(bytes) };
    }));
    for (const s of staged) {
      const current = `${s.dir}/plugin.wasm`;
      const prev = `${s.dir}/plugin.prev.wasm`;
      this.graph.expect(s.plugin, s.hash);
      const hadCurrent = await Deno.stat(current).then(() => true, () => false);
      if (how === "revert") {
        // The current version becomes plugin.prev.wasm; the previous one becomes current.
        await Deno.rename(current, prev);
      } else if (hadCurrent) {
        await Deno.rename(current, prev);
      }
      await Deno.rename(s.tmp, current);
      this.journal.append(
        "core",
        "core",
        "core",
        JSON.stringify({ event: how, plugin: s.plugin, hash: s.hash, force }),
      );
    }
    return Object.fromEntries(fresh);
  }

  /** `core.activate` and `core.revert`. */
  methods(): Map<string, CoreMethod> {
    return new Map<string, CoreMethod>([
      ["activate", (_caller, params) => this.activate(params)],
      ["revert", (_caller, params) => this.revert(params)],
    ]);
  }
}
