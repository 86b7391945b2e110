/**
 * Benchmark: what one process costs inside a sandbox, without the core and
 * the pipe: a fresh instance of the no-op component per call, run to its
 * answer, in this process (bench/alternatives/our_instance.ts).
 *
 *   deno run -A bench/instance_cost.ts [--calls N] [--plain] [--fresh-memory]
 *
 * `--plain` leaves out the preemption checks (what they cost);
 * `--fresh-memory` gives every instance a new memory instead of a pooled one.
 */

import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { ourInstance } from "./alternatives/our_instance.ts";
import process from "node:process";

const calls = Number(Deno.args[Deno.args.indexOf("--calls") + 1]) || 2000;
const plain = Deno.args.includes("--plain");
const probe = await builtTestPlugin("probe");
const world = await makeWorld({ plugins: { probe } });
const run = await ourInstance(probe, world, {
  preempt: !plain,
  memoryPool: Deno.args.includes("--fresh-memory") ? 0 : undefined,
});
const request = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: "p", method: "noop", params: {} }) + "\n",
);
const once = () => run(request);

for (let i = 0; i < 200; i++) await once(); // warm-up
const times: number[] = [];
const cpu0 = process.cpuUsage();
for (let i = 0; i < calls; i++) times.push(await once());
const cpu = process.cpuUsage(cpu0);
times.sort((a, b) => a - b);
const at = (p: number) =>
  times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(3);
console.log(
  `${plain ? "plain" : "preemptible"}: ${calls} instances, start to answer p50 ${at(0.5)} ms, ` +
    `p90 ${at(0.9)} ms, p99 ${at(0.99)} ms; CPU ${
      ((cpu.user + cpu.system) / calls).toFixed(0)
    } µs ` +
    `per instance (a steadier figure than time on a busy machine)`,
);
