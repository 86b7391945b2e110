/**
 * The core's state as `/proc` shows it: the `ProcSource` of the mounts,
 * built from the process table, the locks and the plugin documents.
 *
 * @module
 */

import type { MemMount } from "../../vfs/mem_mount.ts";
import type { PluginFile, ProcSource } from "../../vfs/proc_source.ts";
import { tsClientSource } from "../typescript/ts_client.ts";
import type { ServedFiles } from "../../vfs/served_mount.ts";
import type { LockTable } from "./locks.ts";
import type { PluginDocs } from "../activation/plugin_docs.ts";
import type { ProcessTable } from "../processes/process_table.ts";
import type { World } from "../world/world.ts";

/** Where the contract lives in the repository. */
const PROTOCOL = new URL("../../PROTOCOL.md", import.meta.url);

/** The TypeScript SDK's declarations, `/proc/core/sausage.d.ts` (what a TypeScript plugin imports). */
const TS_SDK = new URL("../typescript/sausage.d.ts", import.meta.url);

/** What `/proc/core/` needs beyond processes. */
export interface ProcViewDeps {
  world: World;
  table: ProcessTable;
  locks: LockTable;
  docs: PluginDocs;
  /** `graph.json` and `graph.dot`. */
  graph(): Promise<{ json: unknown; dot: string }>;
  /** `client.rs` of a plugin. */
  client(plugin: string): Promise<string>;
  /** `journal.json`: how the journal's writes go (failures on a full disk). */
  journal?(): unknown;
  /** The files a process serves (`core.serve`, PROTOCOL 5.1). */
  served?(pid: string): ServedFiles | undefined;
  /** `failing.json`: the plugins whose calls all end without an answer (`failing_plugins.ts`). */
  failing(): unknown;
}

/** The `ProcSource` of a host. */
export class ProcView implements ProcSource {
  constructor(private deps: ProcViewDeps) {}

  pids(): string[] {
    return this.deps.table.all().map((p) => p.pid);
  }
  info(pid: string): unknown | undefined {
    return this.deps.table.get(pid)?.info();
  }
  log(pid: string): string[] | undefined {
    return this.deps.table.get(pid)?.lines;
  }
  selfFiles(pid: string): MemMount | undefined {
    return this.deps.table.get(pid)?.self;
  }
  served(pid: string): ServedFiles | undefined {
    return this.deps.served?.(pid);
  }
  coreFiles(): Record<string, () => string | Promise<string>> {
    return {
      "PROTOCOL.md": () => Deno.readTextFile(PROTOCOL),
      "graph.json": async () => JSON.stringify((await this.deps.graph()).json, null, 2) + "\n",
      "graph.dot": async () => (await this.deps.graph()).dot,
      "locks.json": () => JSON.stringify(this.deps.locks.snapshot(), null, 2) + "\n",
      ...this.deps.journal
        ? { "journal.json": () => JSON.stringify(this.deps.journal!(), null, 2) + "\n" }
        : {},
      "failing.json": () => JSON.stringify(this.deps.failing(), null, 2) + "\n",
      "sausage.d.ts": () => Deno.readTextFile(TS_SDK),
    };
  }
  plugins(): string[] {
    return this.deps.world.pluginNames().filter((name) => {
      try {
        this.deps.world.pluginWasm(name);
        return true;
      } catch {
        return false;
      }
    });
  }
  async pluginFile(name: string, file: PluginFile): Promise<string> {
    if (file === "client.rs") return await this.deps.client(name);
    const doc = await this.deps.docs.get(name);
    // What `sausage import` writes as a TypeScript consumer's `imports/<name>.ts`.
    if (file === "client.ts") return tsClientSource(name, doc);
    return JSON.stringify(doc, null, 2) + "\n";
  }
}
