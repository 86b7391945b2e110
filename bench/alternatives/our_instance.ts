/**
 * The benchmark's "our WASI host in this process" row (`bench/suite.ts`,
 * part 4): a fresh sandbox instance of a component per call, run with
 * `runProcess` as `bench/instance_cost.ts` runs it (preemptible, pooled
 * memory), without the core and the pipe, so the table shows what the
 * isolation costs.
 *
 * @module
 */

import { ComponentCache } from "../../core/cache/component_cache.ts";
import { runProcess } from "../../sandbox/run_process.ts";
import { ByteQueue } from "../../sandbox/wasi/pipes.ts";
import { FsChannel } from "../../sandbox/mounts/remote_mount.ts";
import { GuestControl } from "../../sandbox/guest/guest_control.ts";
import { MemoryPool } from "../../sandbox/guest/memory_pool.ts";

/** How `ourInstance` runs the component. */
export interface InstanceOptions {
  /** Make the core modules preemptible (default true; false measures what the checks cost). */
  preempt?: boolean;
  /** The bytes of memories kept for the next instance (default 64 MiB; 0: a fresh one each time). */
  memoryPool?: number;
  /** "jco" forces jco's glue; "auto" lets the component take our preview-1 binding (default: `SAUSAGE_ENGINE`). */
  engine?: "auto" | "jco";
}

/**
 * A function that runs `component` (in `world`) once in a fresh instance
 * with `request` on stdin and resolves with the milliseconds from start to
 * its answer line, after the process has ended; it rejects when the process
 * fails or never answers.
 */
export async function ourInstance(
  component: string,
  world: string,
  opts: InstanceOptions = {},
): Promise<(request: Uint8Array) => Promise<number>> {
  const cache = new ComponentCache(undefined, undefined, opts.preempt ?? true, opts.engine);
  const { dir } = await cache.load(component);
  const memories = new MemoryPool(opts.memoryPool ?? 64 * 2 ** 20);
  return async (request) => {
    const stdin = new ByteQueue();
    stdin.push(request);
    let answered = 0;
    const t0 = performance.now();
    const ended = await runProcess(dir, world, [["SAUSAGE_PID", "p"]], {
      stdin,
      fs: new FsChannel("p", () => {}),
      control: new GuestControl(256 * 2 ** 20),
      maxLine: 2 ** 24,
      memories,
      onStdout: (line) => {
        if (line.includes('"result"')) (answered = performance.now(), stdin.end());
      },
      onStderr: () => {},
    });
    if (ended.status !== 0 || !answered) throw new Error(JSON.stringify(ended));
    return answered - t0;
  };
}
