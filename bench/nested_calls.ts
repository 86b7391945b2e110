/**
 * Benchmark: nested calls through the core, the rows of `deno task bench`
 * that issue 22 sets targets for (a nested call ≤ 0.5 ms, a fan-out of 10 ≤
 * 2 ms), on their own and in rounds, so that two builds can be run
 * alternately on one machine (A/B) in minutes rather than the suite's
 * quarter of an hour.
 *
 *   deno run --allow-all bench/nested_calls.ts [--rounds 3] [--calls 1000] [--calls-starting N]
 *
 * Each sandbox first runs 2,000 processes of the probe (V8's tier-up), and
 * the nested and fan-out calls 300 each; then each round prints the p50 and
 * p99 of `--calls` nested calls and a tenth as many fan-outs, with the CPU
 * per call of the core and of the sandboxes. `--calls-starting` sets that
 * limit of `config/limits.json` (4 by default: a fan-out of 10 starts in
 * three waves).
 *
 * @module
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import type { Host } from "../core/host.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cpuNow } from "./cpu_time.ts";

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  const n = i < 0 ? NaN : Number(Deno.args[i + 1]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const rounds = arg("rounds", 3);
const n = arg("calls", 1000);
const starting = arg("calls-starting", 0);

/** Times `total` calls of `method` from one caller; prints a line unless `quiet`. */
async function row(host: Host, what: string, method: string, params: object, total: number) {
  const c = WorldClient.of(host, "bench");
  const times: number[] = [];
  const cpu0 = cpuNow();
  for (let i = 0; i < total; i++) {
    const t = performance.now();
    const r = await c.send(method, params as Record<string, unknown>);
    times.push(performance.now() - t);
    if ("error" in r && r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  }
  const cpu1 = cpuNow();
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))];
  const per = (ms: number) => (ms * 1000 / total).toFixed(0);
  return `${what}: p50 ${at(0.5).toFixed(3)} ms, p99 ${at(0.99).toFixed(3)} ms; CPU µs per call: ` +
    `core ${per(cpu1.host - cpu0.host)}, sandboxes ${per(cpu1.sandboxes - cpu0.sandboxes)}`;
}

const probe = await builtTestPlugin("probe");
const world = await makeWorld({
  plugins: { probe },
  files: starting ? { "config/limits.json": JSON.stringify({ calls_starting: starting }) } : {},
});
const { host } = await WorldServer.open(world, { socket: false, watch: false });
await host.start();
await Promise.all(host.pool.sandboxes.map((s) => s.ready));
const nested = { method: "probe.noop", params: {} };
const fanout = { calls: Array.from({ length: 10 }, () => nested) };
await row(host, "warm-up", "probe.noop", {}, 2000 * host.pool.sandboxes.length);
await row(host, "warm-up", "probe.call", nested, 300);
await row(host, "warm-up", "probe.fanout", fanout, 300);
for (let r = 1; r <= rounds; r++) {
  console.log(`round ${r}: ` + await row(host, "nested call", "probe.call", nested, n));
  console.log(
    `round ${r}: ` + await row(host, "fan-out of 10", "probe.fanout", fanout, Math.ceil(n / 10)),
  );
}
await host.shutdown(200);
await Deno.remove(world, { recursive: true });
