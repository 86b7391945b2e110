/**
 * What a lone caller's deadlines cost per call: a time limit (60 s) and a
 * starting window (20 ms) added and cancelled for each call, as
 * `process_lifecycle.ts` and `call_queue.ts` do, one call after the other
 * (a microtask between: no turn of the event loop, whose own cost would
 * hide these).
 * With `--base <path of another deadlines.ts>` the two run side by side,
 * rounds interleaved.
 *
 *   deno run --allow-all bench/deadlines_cost.ts [--calls 20000] [--base path]
 *
 * @module
 */

import { threadCpuMs } from "./cpu_time.ts";
import { Deadlines } from "../core/calls/deadlines.ts";

type DeadlinesClass = new (grainMs?: number) => {
  add(ms: number, fn: () => void): () => void;
  clear(): void;
};

const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const calls = Number(arg("--calls") ?? 20_000);
const basePath = arg("--base");
const builds: [string, DeadlinesClass][] = [["now", Deadlines]];
if (basePath) {
  const url = basePath.startsWith("/") ? `file://${basePath}` : basePath;
  builds.unshift(["base", (await import(url)).Deadlines]);
}

/** One call per macrotask: its deadlines added, then cancelled at its end. */
async function round(D: DeadlinesClass): Promise<number> {
  const limits = new D(10);
  const windows = new D(5);
  const cpu0 = threadCpuMs();
  for (let i = 0; i < calls; i++) {
    const limit = limits.add(60_000, () => {});
    const window = windows.add(20, () => {});
    await Promise.resolve(); // the call runs
    window();
    limit();
  }
  const us = (threadCpuMs() - cpu0) * 1000 / calls;
  limits.clear();
  windows.clear();
  return us;
}

const results = new Map<string, number[]>(builds.map(([name]) => [name, []]));
for (let r = 0; r < 3; r++) {
  for (const [name, D] of builds) results.get(name)!.push(await round(D));
}
for (const [name, us] of results) {
  const s = us.map((u) => u.toFixed(1)).join(", ");
  console.log(`${name}: ${s} µs of CPU per call`);
}
console.log(`load ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
