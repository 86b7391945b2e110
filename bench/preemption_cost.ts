/**
 * Benchmark: what the preemption checks cost (`wasm/preempt.ts`).
 *
 *   deno run -A bench/preemption_cost.ts [--rounds 5]
 *
 * Runs the same calls on two hosts of one world, one with instrumented
 * components and one without (`noPreemption`): the worst case (an empty
 * counting loop, `probe.count`), recursion (`probe.fib`), a no-op call, and
 * the example plugin `notes` (add and list, with its lock and file). Prints
 * the median of each and the slowdown.
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { buildPlugin } from "../core/cargo/cargo_build.ts";
import { cacheDir } from "../core/paths.ts";

const rounds = Number(Deno.args[Deno.args.indexOf("--rounds") + 1]) || 5;
const probe = await builtTestPlugin("probe");
const notes = `${cacheDir()}/sdk-test/notes.wasm`;
await buildPlugin(new URL("../examples/notes", import.meta.url).pathname, notes);
const root = await makeWorld({ plugins: { probe, notes } });

const cases: [string, string, Record<string, unknown>, number][] = [
  ["empty loop, 2e8 iterations", "probe.count", { n: 200_000_000 }, 1],
  ["recursion, fib(32)", "probe.fib", { n: 32 }, 1],
  ["no-op call", "probe.noop", {}, 200],
  ["notes.add", "notes.add", { text: "milk" }, 50],
  ["notes.list", "notes.list", {}, 50],
];

async function measure(noPreemption: boolean): Promise<number[]> {
  const { host } = await WorldServer.open(root, {
    socket: false,
    noPreemption,
    watch: false,
    sdkDir: null,
  });
  await host.start();
  const caller = WorldClient.of(host, "bench");
  const medians: number[] = [];
  for (const [, method, params, n] of cases) {
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const res = await caller.send(method, params);
        if (res.error) throw new Error(`${method}: ${JSON.stringify(res.error)}`);
      }
      times.push((performance.now() - t0) / n);
    }
    times.sort((a, b) => a - b);
    medians.push(times[times.length >> 1]);
  }
  await host.shutdown(100);
  return medians;
}

await measure(false); // warm both caches
const plain = await measure(true);
const checked = await measure(false);
console.log("| case | plain | with checks | slowdown |");
console.log("| --- | --- | --- | --- |");
cases.forEach(([label], i) => {
  console.log(
    `| ${label} | ${plain[i].toFixed(2)} ms | ${checked[i].toFixed(2)} ms | ${
      (checked[i] / plain[i]).toFixed(2)
    }x |`,
  );
});
await Deno.remove(root, { recursive: true });
