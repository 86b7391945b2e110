/**
 * A process on our own preview-1 binding: the component's main core module
 * (made preemptible and importing its memory by the component cache), a
 * fresh instance per process with a pooled memory, its `_start` run through
 * JSPI. No jco glue, no adapter, shim or fixup instance: one core instance
 * per process. The WASI 0.2 functions an SDK plugin's main module imports
 * directly are bound at the canonical-ABI level (`canonical_abi/`). Preemption,
 * kills, the memory limit, the pool and the preopens are the same objects
 * the jco path uses.
 *
 * @module
 */

import { GuestExit } from "../wasi/cli.ts";
import { Descriptor } from "../wasi/filesystem.ts";
import type { DescriptorFlags } from "../wasi/filesystem_values.ts";
import type { RunProcess } from "../process/process_io.ts";
import { runSkeleton } from "../process/run_skeleton.ts";
import { Loads } from "../process/loads.ts";
import { type ModuleNeeds, moduleNeeds } from "../process/module_needs.ts";
import { processPreopens } from "../mounts/preopens.ts";
import { MEMORY_IMPORT, type MemoryLimits } from "../../wasm/import_memory.ts";
import { listImports } from "../../wasm/import_list.ts";
import type { Mount } from "../../vfs/mount.ts";
import { FdTable } from "./fd_table.ts";
import { GuestMemory, utf8 } from "./memory.ts";
import { preview1Imports } from "./binding.ts";
import { PREVIEW1_MAIN, PREVIEW1_MODULE } from "./names.ts";
import type { Preview1Context } from "./context.ts";
import { type ComponentImport, componentImports } from "../canonical_abi/bind.ts";
import { GuestAbi } from "../canonical_abi/guest_abi.ts";
import { wasiInterfaces } from "../wasi/process_interfaces.ts";
import { interfaceOf } from "../canonical_abi/wit.ts";

/** A main module loaded into this sandbox, with what its instantiation needs. */
interface Loaded extends ModuleNeeds {
  module: WebAssembly.Module;
  /** The preview-1 functions it imports. */
  names: string[];
  /** The WASI 0.2 functions it imports (an SDK plugin's), bound at the canonical-ABI level. */
  component: ComponentImport[];
}

const kinds = new Map<string, boolean>();

/** True when the cache entry at `dir` is for this engine (it holds {@link PREVIEW1_MAIN}). */
export function isPreview1Entry(dir: string): boolean {
  let known = kinds.get(dir);
  if (known === undefined) {
    try {
      Deno.statSync(`${dir}/${PREVIEW1_MAIN}`);
      known = true;
    } catch {
      known = false;
    }
    kinds.set(dir, known);
  }
  return known;
}

async function load(dir: string): Promise<Loaded> {
  const bytes = await Deno.readFile(`${dir}/${PREVIEW1_MAIN}`);
  const module = await WebAssembly.compile(bytes);
  const imports = listImports(bytes);
  return {
    module,
    ...moduleNeeds(imports),
    names: imports.filter((i) => i.module === PREVIEW1_MODULE && i.kind === "function")
      .map((i) => i.name),
    component: imports.filter((i) => i.kind === "function" && interfaceOf(i.module) !== null)
      .map(({ module, name }) => ({ module, name })),
  };
}

/** The main modules loaded in this sandbox (a failed load is tried again by the next process). */
const loaded = new Loads(load, true);

/** JSPI's export wrapper (not yet in TypeScript's lib). */
const promising = (WebAssembly as unknown as {
  promising: (f: unknown) => () => Promise<unknown>;
}).promising;

const DIR_FLAGS: DescriptorFlags = { read: true, write: true, mutateDirectory: true };

/**
 * Runs one process of the entry at `dir` on the preview-1 binding, to its
 * end, in the steps of `process/run_skeleton.ts`. `command.cwd` has no
 * counterpart in preview 1 (wasi-libc starts in `/`, as it does behind
 * jco's adapter).
 */
export const runPreview1: RunProcess = async (dir, world, env, io, command = {}) => {
  const main = await loaded.of(dir);
  return runSkeleton<{ exports: Record<string, unknown> }>(
    io,
    ({ stdout, stderr, files, resources }) => {
      const fds = new FdTable();
      const mem = new GuestMemory();
      fds.add({ kind: "stdio", input: io.stdin });
      fds.add({ kind: "stdio", output: stdout });
      fds.add({ kind: "stdio", output: stderr });
      const devs = new Map<Mount, number>();
      for (const p of processPreopens(world, io.fs, command.preopens, command.onlyPreopens)) {
        devs.set(p.mount, devs.size + 1);
        const flags = p.mount.writable ? DIR_FLAGS : { read: true };
        fds.add({
          kind: "dir",
          desc: new Descriptor(p.mount, "", null, flags, files),
          pos: 0,
          append: false,
          fdflags: 0,
          preopen: utf8(p.guestPath),
        });
      }
      const ctx: Preview1Context = { mem, fds, devOf: (m) => devs.get(m) ?? 0 };
      const abi = main.component.length ? new GuestAbi(() => mem.memory!) : null;
      let taken: [WebAssembly.Memory, MemoryLimits] | null = null;
      return {
        instantiate: () => {
          const imports: Record<string, Record<string, unknown>> = {
            [PREVIEW1_MODULE]: preview1Imports(ctx, { args: command.args ?? [], env }, main.names),
          };
          if (abi) {
            const wasi = wasiInterfaces({
              ...command,
              env,
              stdin: io.stdin,
              stdout,
              stderr,
              resources,
            });
            Object.assign(imports, componentImports(main.component, wasi, abi));
          }
          if (main.memory) {
            const memory = io.memories.take(main.memory);
            taken = [memory, main.memory];
            mem.memory = memory;
            imports[MEMORY_IMPORT.module] = { [MEMORY_IMPORT.name]: memory };
          }
          return io.control.instantiateCore(main.module, imports, main.preemptible);
        },
        entry: (instance) => {
          if (!mem.memory) mem.memory = instance.exports.memory as WebAssembly.Memory;
          if (abi) abi.realloc = instance.exports.cabi_realloc as GuestAbi["realloc"];
          const start = instance.exports._start;
          if (typeof start !== "function") {
            throw new Error("the plugin's main module has no _start export: not a WASI command");
          }
          return () => promising(start)();
        },
        exitStatus: (e) => e instanceof GuestExit ? e.status : undefined,
        // Calls still pending (a timer, a file read) write nothing from now on: the memory
        // may be the next process's (memory.ts).
        fence: () => mem.fence(),
        close: () => fds.closeAll(),
        // The instance can never run again: its `_start` settled (or it never started).
        giveMemories: () => {
          if (taken) io.memories.give(...taken);
        },
      };
    },
  );
};
