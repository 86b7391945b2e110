/**
 * One process inside a sandbox: builds its WASI imports, instantiates the
 * component afresh and runs `wasi:cli/run`. Compiled core modules are reused
 * across processes of the same component.
 *
 * @module
 */

import { ExitCode, GuestExit } from "../wasi/cli.ts";
import { filesystemInterfaces, OpenFiles } from "../wasi/filesystem.ts";
import type { ByteQueue } from "../wasi/pipes.ts";
import { outputSinks } from "../guest/output_sinks.ts";
import type { OutputWindow } from "../guest/output_window.ts";
import { ProcessResources } from "../wasi/resources.ts";
import { wasiInterfaces } from "../wasi/process_interfaces.ts";
import type { FsChannel } from "../mounts/remote_mount.ts";
import type { ExtraPreopen } from "../hop/protocol.ts";
import { type GuestControl, GuestKilled } from "../guest/guest_control.ts";
import { processPreopens } from "../mounts/preopens.ts";
import { trapMessage } from "../guest/trap_message.ts";
import { isPreview1Entry, runPreview1 } from "../preview1/run.ts";
import { MEMORY_IMPORT, memoryImportOf, type MemoryLimits } from "../../wasm/import_memory.ts";
import { listImports } from "../../wasm/import_list.ts";
import { PREEMPT_MODULE } from "../../wasm/preempt.ts";
import type { MemorySource } from "../guest/process_memories.ts";

type Glue = {
  instantiate(
    getCoreModule: (name: string) => WebAssembly.Module,
    imports: Record<string, unknown>,
    instantiateCore: (
      m: WebAssembly.Module,
      i?: Record<string, Record<string, unknown>>,
    ) => { exports: Record<string, unknown> },
  ): Promise<{ run: { run(): Promise<void> } }>;
};

/** A transpiled component loaded into this sandbox. */
interface Loaded {
  glue: Glue;
  modules: Map<string, WebAssembly.Module>;
  /** What the instantiation of each core module needs, read once from its bytes. */
  needs: Map<WebAssembly.Module, ModuleNeeds>;
}

/** What instantiating one core module needs beyond the glue's imports. */
interface ModuleNeeds {
  /** The limits of the memory it imports (`wasm/import_memory.ts`), if it does. */
  memory?: MemoryLimits;
  /** It imports `sausage:preempt` (`wasm/preempt.ts`). */
  preemptible: boolean;
}

const loaded = new Map<string, Promise<Loaded>>();

async function load(dir: string): Promise<Loaded> {
  const glue = await import(`file://${dir}/plugin.js`) as Glue;
  const modules = new Map<string, WebAssembly.Module>();
  const needs = new Map<WebAssembly.Module, ModuleNeeds>();
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name.endsWith(".wasm")) {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      const module = await WebAssembly.compile(bytes);
      modules.set(entry.name, module);
      const imports = listImports(bytes);
      needs.set(module, {
        memory: memoryImportOf(imports),
        preemptible: imports.some((i) => i.module === PREEMPT_MODULE),
      });
    }
  }
  return { glue, modules, needs };
}

export { setWorldDiskBound } from "../mounts/preopens.ts";

/** The stdio and exit of a running process, as the sandbox sees them. */
export interface ProcessIo {
  /** Its stdout and stderr lines in flight to the core, if bounded (`output_window_kib`). */
  window?: OutputWindow;
  stdin: ByteQueue;
  /** The pipe to the core for `/proc`, `/self` and `/run`. */
  fs: FsChannel;
  /** Its time slices, kill switch and memory limit. */
  control: GuestControl;
  /** The longest line on stdout or stderr, in bytes: a longer one ends the process. */
  maxLine: number;
  /** Where its memory comes from and goes back to (charged first: `process_memories.ts`). */
  memories: MemorySource;
  onStdout(line: string): void;
  onStderr(line: string): void;
}

/** What a command gets beyond a plugin process (all optional). */
export interface CommandOptions {
  /** `wasi:cli/environment.get-arguments` (default none). */
  args?: string[];
  /** `initial-cwd` (default `/`). */
  cwd?: string;
  /** Host folders preopened beside `/`, at their guest paths. */
  preopens?: ExtraPreopen[];
  /** Only `preopens` (`RunMessage.onlyPreopens`). */
  onlyPreopens?: boolean;
}

/** How a process ended. */
export interface Ended {
  status: number;
  error?: string;
}

/**
 * Runs one process to its end: on our preview-1 binding when the cache made
 * the entry for it (`preview1/run.ts`), else on jco's glue.
 */
export function runProcess(
  dir: string,
  world: string,
  env: [string, string][],
  io: ProcessIo,
  command: CommandOptions = {},
): Promise<Ended> {
  if (isPreview1Entry(dir)) return runPreview1(dir, world, env, io, command);
  return runJco(dir, world, env, io, command);
}

/** Runs one process on jco's glue and its core instances. */
async function runJco(
  dir: string,
  world: string,
  env: [string, string][],
  io: ProcessIo,
  command: CommandOptions,
): Promise<Ended> {
  let entry = loaded.get(dir);
  if (!entry) {
    entry = load(dir);
    loaded.set(dir, entry);
  }
  const { glue, modules, needs } = await entry;
  const { stdout, stderr } = outputSinks(io);
  const files = new OpenFiles();
  const resources = new ProcessResources();
  const imports = {
    ...wasiInterfaces({ ...command, env, stdin: io.stdin, stdout, stderr, resources }),
    ...filesystemInterfaces(
      processPreopens(world, io.fs, command.preopens, command.onlyPreopens),
      files,
    ),
  };
  let ended: Ended;
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
  try {
    const control = io.control;
    // Fair starts: a flood of processes from one asker waits its turn (guest_control.ts).
    await control.admit();
    let instance;
    try {
      if (control.killed) throw new GuestKilled();
      instance = await control.instantiate(() =>
        glue.instantiate(
          (name) => modules.get(name)!,
          imports,
          instantiateCore,
        )
      );
    } finally {
      control.admitted();
    }
    control.started();
    await instance.run.run();
    ended = { status: 0 };
  } catch (e) {
    if (io.control.killed) ended = { status: 1, error: io.control.killReason ?? "killed" };
    else if (e instanceof GuestExit) ended = { status: exitCode.statusOf(e) };
    else if (isRunError(e)) ended = { status: 1 };
    else ended = { status: 1, error: trapMessage(e, io.control) };
  } finally {
    io.fs.abort();
    files.closeAll();
    await resources.releaseAll(); // a listener's port is free when the exit is reported
    // The instance can never run again: its `run` settled (or it never started). A host
    // call still pending (a kill does not stop it) may write into its memory when it
    // settles (jco's glue writes results after the await): that memory is not pooled.
    if (io.control.pendingCalls === 0) {
      for (const [memory, limits] of taken) io.memories.give(memory, limits);
    }
  }
  stdout.finish();
  stderr.finish();
  return ended;
}

/** `wasi:cli/run` returned `err`: a normal failure exit, no trap. */
function isRunError(e: unknown): boolean {
  return typeof e === "object" && e !== null && "payload" in e &&
    (e as { payload: unknown }).payload === undefined;
}
