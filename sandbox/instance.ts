/**
 * One process inside a sandbox: builds its WASI imports, instantiates the
 * component afresh and runs `wasi:cli/run`. Compiled core modules are reused
 * across processes of the same component.
 *
 * @module
 */

import { WORLD_MEMORY_TRAP } from "./memory_share.ts";
import { cliInterfaces, ExitCode, GuestExit } from "./wasi/cli.ts";
import { clockInterfaces } from "./wasi/clocks.ts";
import { filesystemInterfaces, OpenFiles } from "./wasi/filesystem.ts";
import { ByteQueue, LineSink } from "./wasi/pipes.ts";
import { errorInterface, InputStream, OutputStream, streamsInterface } from "./wasi/streams.ts";
import { pollInterface } from "./wasi/poll.ts";
import { randomInterfaces } from "./wasi/random.ts";
import { networkInterfaces } from "./wasi/network.ts";
import { ProcessResources } from "./wasi/resources.ts";
import { DiskBudget } from "../vfs/disk_budget.ts";
import { DiskMount } from "../vfs/disk_mount.ts";
import type { Mount } from "../vfs/mount.ts";
import { type FsChannel, RemoteMount } from "./remote_mount.ts";
import { CoreSymlinks } from "./core_symlinks.ts";
import type { ExtraPreopen } from "./protocol.ts";
import { type GuestControl, GuestKilled } from "./guest_control.ts";
import { MEMORY_IMPORT, memoryImportOf, type MemoryLimits } from "../wasm/import_memory.ts";
import { listImports } from "../wasm/import_list.ts";
import { PREEMPT_MODULE } from "../wasm/preempt.ts";
import type { MemoryPool } from "./memory_pool.ts";

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

const worlds = new Map<string, Mount>();

/** The world's disk bound in bytes (`disk_mib`; `--disk-bytes` of the sandbox), if any. */
let worldDiskBytes: number | undefined;

/**
 * Sets the disk bound of the world mounts made from now on
 * (`vfs/disk_budget.ts`); with the world's folder, makes its mount now and
 * counts the world in the background, so no call waits for the count.
 */
export function setWorldDiskBound(bytes: number | undefined, world?: string): void {
  worldDiskBytes = bytes;
  if (bytes === undefined || !world) return;
  const budget = new DiskBudget(world, bytes);
  worlds.set(world, new DiskMount(world, { budget }));
  budget.prime().catch(() => {});
}

/** The disk mount of a host folder, made once per sandbox; a world's counts against its bound. */
function diskMount(hostPath: string, world = false): Mount {
  let mount = worlds.get(hostPath);
  if (!mount) {
    const budget = world && worldDiskBytes !== undefined
      ? new DiskBudget(hostPath, worldDiskBytes)
      : undefined;
    mount = new DiskMount(hostPath, { budget });
    worlds.set(hostPath, mount);
  }
  return mount;
}

/** The stdio and exit of a running process, as the sandbox sees them. */
export interface ProcessIo {
  stdin: ByteQueue;
  /** The pipe to the core for `/proc`, `/self` and `/run`. */
  fs: FsChannel;
  /** Its time slices, kill switch and memory limit. */
  control: GuestControl;
  /** The longest line on stdout or stderr, in bytes: a longer one ends the process. */
  maxLine: number;
  /** Where its memory comes from and goes back to. */
  memories: MemoryPool;
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
}

/** How a process ended. */
export interface Ended {
  status: number;
  error?: string;
}

/** Runs one process to its end. */
export async function runProcess(
  dir: string,
  world: string,
  env: [string, string][],
  io: ProcessIo,
  command: CommandOptions = {},
): Promise<Ended> {
  let entry = loaded.get(dir);
  if (!entry) {
    entry = load(dir);
    loaded.set(dir, entry);
  }
  const { glue, modules, needs } = await entry;
  const mount = new CoreSymlinks(diskMount(world, true), "world", io.fs);
  const extra = (command.preopens ?? []).map((p) => ({
    guestPath: p.guestPath,
    mount: new CoreSymlinks(diskMount(p.hostPath), `preopen:${p.guestPath}`, io.fs),
  }));
  const tooLong = (stream: string) => () =>
    io.control.kill(
      `line limit: a line on ${stream} passed ${io.maxLine / 2 ** 20} MiB ` +
        `("line_mib" in config/limits.json)`,
    );
  const stdout = new LineSink(io.onStdout, io.maxLine, tooLong("stdout"));
  const stderr = new LineSink(io.onStderr, io.maxLine, tooLong("stderr"));
  const files = new OpenFiles();
  const resources = new ProcessResources();
  const imports = {
    ...cliInterfaces({
      env,
      args: command.args ?? [],
      cwd: command.cwd ?? "/",
      stdin: new InputStream(io.stdin),
      stdout: new OutputStream(stdout),
      stderr: new OutputStream(stderr),
    }),
    ...clockInterfaces(),
    ...randomInterfaces(),
    ...filesystemInterfaces([
      { guestPath: "/", mount },
      ...extra,
      { guestPath: "/proc", mount: new RemoteMount("proc", false, io.fs) },
      { guestPath: "/self", mount: new RemoteMount("self", true, io.fs) },
      { guestPath: "/run", mount: new RemoteMount("run", true, io.fs) },
    ], files),
    "wasi:io/poll": pollInterface,
    "wasi:io/streams": streamsInterface,
    "wasi:io/error": errorInterface,
    ...networkInterfaces(resources),
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
    resources.releaseAll();
    // The instance can never run again: its `run` settled (or it never started).
    for (const [memory, limits] of taken) io.memories.give(memory, limits);
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

function trapMessage(e: unknown, control: GuestControl): string {
  if (control.worldMemoryHit) {
    return `${WORLD_MEMORY_TRAP}: the world's processes use all the memory it allows (${
      Math.round(control.share!.limit / 2 ** 20)
    } MiB for this sandbox, "world_memory_mib" in config/limits.json)`;
  }
  if (control.memoryLimitHit) {
    return `memory limit: the process tried to grow its memory past ${
      control.memoryLimit / 2 ** 20
    } MiB`;
  }
  if (e instanceof GuestKilled) return "killed";
  if (e instanceof WebAssembly.RuntimeError) return `trap: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
