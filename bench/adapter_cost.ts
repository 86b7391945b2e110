/**
 * Benchmark: what a preview-1 adapter costs per call. The same core module
 * (the probe plugin's, `tests/plugins/probe`, built on the offline path) is
 * adapted once with jco's adapter and once with the adapter file given, and
 * no-op calls through the core alternate between the two, in rounds (the
 * first of a round alternates too).
 *
 *   deno run -A bench/adapter_cost.ts <adapter.wasm> [--calls N] [--rounds R]
 *
 * Prints p50 latency and calls per second of each, per round.
 */

import type { Host } from "../core/host.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { cacheDir } from "../core/paths.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { adaptModule, jcoAdapterPath } from "../tests/wasi_testsuite/adapt.ts";

const other = Deno.args[0];
if (!other || other.startsWith("-")) {
  console.error("usage: deno run -A bench/adapter_cost.ts <adapter.wasm> [--calls N] [--rounds R]");
  Deno.exit(2);
}
const flag = (name: string, dflt: number) => Number(Deno.args[Deno.args.indexOf(name) + 1]) || dflt;
const calls = flag("--calls", 1000);
const rounds = flag("--rounds", 3);

await builtTestPlugin("probe"); // leaves the core module in the shared target folder
const module = `${cacheDir()}/target/offline-wasip1/wasm32-wasip1/release/probe.wasm`;
const work = await Deno.makeTempDir({ prefix: "sausage-adapter-bench-" });
const adapters = { jco: await jcoAdapterPath(), other };

const hosts: Record<string, { host: Host; root: string }> = {};
for (const [name, adapter] of Object.entries(adapters)) {
  const probe = await adaptModule(module, adapter, work);
  const root = await makeWorld({ plugins: { probe } });
  const { host } = await WorldServer.open(root, { socket: false, sandboxes: 1 });
  await host.start();
  hosts[name] = { host, root };
}

async function measure(host: Host, n: number): Promise<{ p50: number; perSecond: number }> {
  const c = WorldClient.of(host, "bench");
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await c.send("probe.noop", {});
    times.push(performance.now() - t);
    if ("error" in r && r.error) throw new Error(JSON.stringify(r.error));
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], perSecond: n / ((performance.now() - t0) / 1000) };
}

for (const { host } of Object.values(hosts)) await measure(host, 200); // warm-up
for (let r = 1; r <= rounds; r++) {
  const order = Object.entries(hosts);
  if (r % 2 === 0) order.reverse(); // neither always runs first
  for (const [name, { host }] of order) {
    const m = await measure(host, calls);
    console.log(
      `round ${r} ${name.padEnd(5)}: p50 ${m.p50.toFixed(3)} ms, ${m.perSecond.toFixed(0)} calls/s`,
    );
  }
}
for (const { host, root } of Object.values(hosts)) {
  await host.shutdown(100);
  await Deno.remove(root, { recursive: true });
}
await Deno.remove(work, { recursive: true });
