/**
 * `world_calls_starting` against the 100-caller rows: for each bound given,
 * a world whose `config/limits.json` sets it, warmed, then 100 callers of
 * no-ops in a row each (throughput, p50, the core's CPU per call) and the
 * no-op p99 beside 100 flooding callers (`flood_calls.ts`), bounds
 * alternated over rounds.
 *
 *   deno run -A bench/world_starting_ab.ts [--rounds 2] 16 64
 *
 * @module
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cpuNow } from "./cpu_time.ts";
import { besideFlood } from "./flood_calls.ts";

const at = Deno.args.indexOf("--rounds");
const rounds = at >= 0 ? Number(Deno.args[at + 1]) : 2;
const bounds = Deno.args.filter((_, i) => at < 0 || (i !== at && i !== at + 1)).map(Number);
const probe = await builtTestPlugin("probe");

for (let r = 0; r < rounds; r++) {
  for (const bound of bounds) {
    const world = await makeWorld({
      plugins: { probe },
      files: { "config/limits.json": JSON.stringify({ world_calls_starting: bound }) },
    });
    const { host } = await WorldServer.open(world, { socket: false, watch: false });
    await host.start();
    const run = async (callers: number, total: number, times: number[]) => {
      await Promise.all(Array.from({ length: callers }, async (_, i) => {
        const c = WorldClient.of(host, `c${i}`);
        for (let k = 0; k < total / callers; k++) {
          const t = performance.now();
          await c.send("probe.noop", {});
          times.push(performance.now() - t);
        }
      }));
    };
    await run(10, 4000, []);
    const times: number[] = [];
    const c0 = cpuNow();
    const t0 = performance.now();
    await run(100, 4000, times);
    const wall = performance.now() - t0;
    const c1 = cpuNow();
    times.sort((a, b) => a - b);
    const flood = await besideFlood(host, 100, 60);
    flood.times.sort((a, b) => a - b);
    console.log(
      `bound ${bound}: 100 callers ${(times.length / wall * 1000).toFixed(0)}/s, p50 ${
        times[times.length >> 1].toFixed(1)
      } ms, core ${((c1.host - c0.host) * 1000 / times.length).toFixed(0)} µs/call; ` +
        `beside the flood p99 ${
          flood.times[Math.floor(flood.times.length * 0.99)].toFixed(1)
        } ms, ${flood.note}`,
    );
    await host.shutdown(100);
    await Deno.remove(world, { recursive: true });
  }
}
