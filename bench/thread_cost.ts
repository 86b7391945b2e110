/**
 * The core's CPU per call by thread (the event loop `deno`, the journal's
 * worker, V8's helpers), from `/proc/self/task`: no-op calls from one
 * caller after 500 warm-up calls.
 *
 *   deno run --allow-all bench/thread_cost.ts [calls]
 *
 * @module
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
/** CPU ms so far of each thread of this process, by `name#tid`. */
function threads(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of Deno.readDirSync(`/proc/self/task`)) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${t.name}/stat`);
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      m.set(`${name}#${t.name}`, (Number(f[11]) + Number(f[12])) * 10);
    } catch { /* gone */ }
  }
  return m;
}
const probe = await builtTestPlugin("probe");
const root = await makeWorld({ plugins: { probe } });
const { host } = await WorldServer.open(root, { socket: false, watch: false });
await host.start();
const c = WorldClient.of(host, "x");
for (let i = 0; i < 500; i++) await c.send("probe.noop", {});
const n = Number(Deno.args[0] ?? 3000);
const before = threads();
for (let i = 0; i < n; i++) await c.send("probe.noop", {});
const after = threads();
const byName = new Map<string, number>();
for (const [k, v] of after) {
  const d = v - (before.get(k) ?? 0);
  const name = k.split("#")[0];
  byName.set(name, (byName.get(name) ?? 0) + d);
}
for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1])) {
  if (v > 0) console.log(`${k}: ${(v * 1000 / n).toFixed(1)} µs/call`);
}
await host.shutdown(100);
await Deno.remove(root, { recursive: true });
