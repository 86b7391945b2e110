/**
 * Where a host's start to its first answer goes (the `deno task bench` row
 * "host start to first answer"): opening the world server, `host.start()`,
 * and the first call (a sandbox started, the module compiled, the process
 * run), each timed, over several starts with the warm cache.
 *
 *   node_modules/.bin/deno run -A bench/host_start_phases.ts [--runs N]
 *
 * @module
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";

const runs = Number(Deno.args[Deno.args.indexOf("--runs") + 1]) || 6;
const probe = await builtTestPlugin("probe");
const world = await makeWorld({ plugins: { probe } });
const rows: number[][] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const { host } = await WorldServer.open(world, { socket: false, watch: false });
  const t1 = performance.now();
  await host.start();
  const t2 = performance.now();
  await WorldClient.of(host, "bench").send("probe.noop", {});
  const t3 = performance.now();
  await WorldClient.of(host, "bench").send("probe.noop", {});
  const t4 = performance.now();
  rows.push([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t3 - t0]);
  await host.shutdown(100);
}
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1).padStart(7)).join(" ");
console.log("   open   start  1st call 2nd call  total (ms)");
for (const r of rows) console.log(fmt(r));
