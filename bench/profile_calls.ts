/**
 * Calls for a profiler: `warm` warm-up calls from 10 callers (4,000 by
 * default: 200 leaves the host cold, as `bench/noop_calls.ts` does), then `n` calls
 * of one caller (a no-op, or a nested call `probe.call` → `probe.noop`),
 * with the core's and the sandboxes' CPU per call. With `MARK=<file>` it
 * writes its pid there after the warm-up and waits 300 ms, so that
 * `perf record -p <pid>` (or `strace -c -p`) sees the steady state only.
 *
 *   deno run --allow-all [--cpu-prof] bench/profile_calls.ts [noop|nested] [n] [warm]
 *
 * `bench/profile_summary.ts` summarises a `--cpu-prof` profile.
 *
 * @module
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cpuNow } from "./cpu_time.ts";
const mode = Deno.args[0] ?? "noop";
const n = Number(Deno.args[1] ?? 3000);
const probe = await builtTestPlugin("probe");
const root = await makeWorld({ plugins: { probe } });
const { host } = await WorldServer.open(root, { socket: false, watch: false });
await host.start();
const method = mode === "nested" ? "probe.call" : "probe.noop";
const params = mode === "nested" ? { method: "probe.noop", params: {} } : {};
async function run(callers: number, total: number) {
  await Promise.all(Array.from({ length: callers }, async (_, i) => {
    const c = WorldClient.of(host, `c${i}`);
    for (let k = 0; k < total / callers; k++) {
      const r = await c.send(method, params);
      if ("error" in r && r.error) throw new Error(JSON.stringify(r.error));
    }
  }));
}
await run(10, Number(Deno.args[2] ?? 4000));
const mark = performance.now();
if (Deno.env.get("MARK")) {
  Deno.writeTextFileSync(Deno.env.get("MARK")!, String(Deno.pid));
  await new Promise((r) => setTimeout(r, 300));
}
const c0 = cpuNow();
const t0 = performance.now();
await run(1, n);
const c1 = cpuNow();
console.log(
  `mark ${mark.toFixed(0)} ms; ${n} calls in ${(performance.now() - t0).toFixed(0)} ms; core ${
    ((c1.host - c0.host) * 1000 / n).toFixed(0)
  } µs/call, sandboxes ${((c1.sandboxes - c0.sandboxes) * 1000 / n).toFixed(0)}`,
);
await host.shutdown(100);
await Deno.remove(root, { recursive: true });
