/**
 * For the binding's tests: real preview-1 modules written in WAT (made into
 * wasm by jco's `parse`, wasm-tools), prepared as the component cache
 * prepares a main module (made preemptible, its memory imported from the
 * pool) and run on the binding in this thread, beside a neighbour whose
 * timer ticks show how long the thread was held.
 *
 * @module
 */

import { parse } from "@bytecodealliance/jco";
import { instrumentModule } from "../../wasm/preempt.ts";
import { importMemory } from "../../wasm/import_memory.ts";
import { GuestControl } from "../guest/guest_control.ts";
import { MemoryPool } from "../guest/memory_pool.ts";
import { FsChannel } from "../mounts/remote_mount.ts";
import { ByteQueue } from "../wasi/pipes.ts";
import type { Ended } from "../process/process_io.ts";
import { runPreview1 } from "./run.ts";
import { PREVIEW1_MAIN } from "./names.ts";

/** The folder of a cache-like entry for the module in `wat`. */
export async function entryOf(wat: string): Promise<string> {
  let bytes: Uint8Array = await parse(wat);
  bytes = instrumentModule(bytes)?.bytes ?? bytes;
  bytes = importMemory(bytes)?.bytes ?? bytes;
  const dir = await Deno.makeTempDir({ prefix: "p1-guest-" });
  await Deno.writeFile(`${dir}/${PREVIEW1_MAIN}`, bytes);
  return dir;
}

/** A process being run, with what it printed. */
export interface Running {
  ended: Promise<Ended>;
  control: GuestControl;
  stdin: ByteQueue;
  stdout: string[];
  stderr: string[];
}

/** What a test process gets. */
export interface RunOptions {
  /** The pool its memory comes from (shared between processes to test reuse). */
  pool?: MemoryPool;
  /** Its world folder (`/`, fd 3): a fresh temporary folder by default. */
  world?: string;
  /** Its memory limit in bytes (default 1 GiB). */
  memoryLimit?: number;
}

/** Starts a process of the entry at `dir` on the preview-1 binding. */
export async function start(dir: string, opts: RunOptions = {}): Promise<Running> {
  const world = opts.world ?? await Deno.makeTempDir({ prefix: "p1-world-" });
  const control = new GuestControl(opts.memoryLimit ?? 2 ** 30);
  const stdin = new ByteQueue();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const ended = runPreview1(dir, world, [], {
    stdin,
    fs: new FsChannel("p", () => {}),
    control,
    maxLine: 2 ** 24,
    memories: opts.pool ?? new MemoryPool(0),
    onStdout: (line) => stdout.push(line),
    onStderr: (line) => stderr.push(line),
  });
  return { ended, control, stdin, stdout, stderr };
}

/**
 * Ticks a timer every `every` ms while `work` runs, as a neighbour on the
 * thread would, and counts the turns of the event loop (`setImmediate`);
 * resolves with `work`'s value, the longest gap between two ticks (or
 * between the start and the first, the last and the end) and the counts.
 * Under load the gap is mostly the machine's: count turns where you can.
 */
export async function withNeighbour<T>(
  work: () => Promise<T>,
  every = 5,
): Promise<{ value: T; worstGap: number; ticks: number; turns: number }> {
  let last = performance.now();
  let worstGap = 0;
  let ticks = 0;
  let turns = 0;
  let going = true;
  const tick = () => {
    const t = performance.now();
    worstGap = Math.max(worstGap, t - last);
    last = t;
    ticks++;
  };
  const turn = () => {
    if (!going) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const id = setInterval(tick, every);
  try {
    const value = await work();
    tick();
    return { value, worstGap, ticks, turns };
  } finally {
    going = false;
    clearInterval(id);
  }
}

/** The import lines of the preview-1 functions the tests use. */
export const IMPORTS = `
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
`;
