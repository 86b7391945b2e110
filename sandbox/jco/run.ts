/**
 * A process on jco's glue: builds its WASI imports, instantiates the
 * transpiled component afresh (its core instances through
 * `GuestControl.instantiateCore`) and runs `wasi:cli/run`, in the steps of
 * `process/run_skeleton.ts`. Compiled core modules are reused across
 * processes of the same component.
 *
 * @module
 */

import { ExitCode, GuestExit } from "../wasi/cli.ts";
import { filesystemInterfaces } from "../wasi/filesystem.ts";
import { wasiInterfaces } from "../wasi/process_interfaces.ts";
import { processPreopens } from "../mounts/preopens.ts";
import { MEMORY_IMPORT, type MemoryLimits } from "../../wasm/import_memory.ts";
import { listImports } from "../../wasm/import_list.ts";
import { type ModuleNeeds, moduleNeeds } from "../process/module_needs.ts";
import type { RunProcess } from "../process/process_io.ts";
import { runSkeleton } from "../process/run_skeleton.ts";
import { Loads } from "../process/loads.ts";

/** A component instance, as jco's glue makes it: its `wasi:cli/run` export. */
type Component = { run: { run(): Promise<void> } };

type Glue = {
  instantiate(
    getCoreModule: (name: string) => WebAssembly.Module,
    imports: Record<string, unknown>,
    instantiateCore: (
      m: WebAssembly.Module,
      i?: Record<string, Record<string, unknown>>,
    ) => { exports: Record<string, unknown> },
  ): Promise<Component>;
};

/** A transpiled component loaded into this sandbox. */
interface Loaded {
  glue: Glue;
  modules: Map<string, WebAssembly.Module>;
  /** What the instantiation of each core module needs, read once from its bytes. */
  needs: Map<WebAssembly.Module, ModuleNeeds>;
}

async function load(dir: string): Promise<Loaded> {
  const glue = await import(`file://${dir}/plugin.js`) as Glue;
  const modules = new Map<string, WebAssembly.Module>();
  const needs = new Map<WebAssembly.Module, ModuleNeeds>();
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name.endsWith(".wasm")) {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      const module = await WebAssembly.compile(bytes);
      modules.set(entry.name, module);
      needs.set(module, moduleNeeds(listImports(bytes)));
    }
  }
  return { glue, modules, needs };
}

/** The components loaded in this sandbox (a failed load stays failed, as it always has here). */
const loaded = new Loads(load, false);

/** Runs one process of the transpiled component at `dir` on jco's glue, to its end. */
export const runJco: RunProcess = async (dir, world, env, io, command = {}) => {
  const { glue, modules, needs } = await loaded.of(dir);
  return runSkeleton<Component>(io, ({ stdout, stderr, files, resources }) => {
    const imports = {
      ...wasiInterfaces({ ...command, env, stdin: io.stdin, stdout, stderr, resources }),
      ...filesystemInterfaces(
        processPreopens(world, io.fs, command.preopens, command.onlyPreopens),
        files,
      ),
    };
    /** The memories this process took from the pool: they go back once `run` has settled. */
    const taken: [WebAssembly.Memory, MemoryLimits][] = [];
    const exitCode = new ExitCode();
    const instantiateCore = (
      m: WebAssembly.Module,
      imports: Record<string, Record<string, unknown>> = {},
    ) => {
      const need = needs.get(m);
      imports = exitCode.wrapImports(imports);
      if (need?.memory) {
        const memory = io.memories.take(need.memory);
        taken.push([memory, need.memory]);
        imports = { ...imports, [MEMORY_IMPORT.module]: { [MEMORY_IMPORT.name]: memory } };
      }
      return io.control.instantiateCore(m, imports, need?.preemptible);
    };
    return {
      instantiate: () => glue.instantiate((name) => modules.get(name)!, imports, instantiateCore),
      entry: (instance) => () => instance.run.run(),
      exitStatus: (e) => {
        if (e instanceof GuestExit) return exitCode.statusOf(e);
        if (isRunError(e)) return 1;
        return undefined;
      },
      giveMemories: () => {
        // The instance can never run again: its `run` settled (or it never started). A host
        // call still pending (a kill does not stop it) may write into its memory when it
        // settles (jco's glue writes results after the await): that memory is not pooled.
        if (io.control.pendingCalls === 0) {
          for (const [memory, limits] of taken) io.memories.give(memory, limits);
        }
      },
    };
  });
};

/** `wasi:cli/run` returned `err`: a normal failure exit, no trap. */
function isRunError(e: unknown): boolean {
  return typeof e === "object" && e !== null && "payload" in e &&
    (e as { payload: unknown }).payload === undefined;
}
