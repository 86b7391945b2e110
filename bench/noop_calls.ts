/**
 * Benchmark: no-op calls through the core, a fresh process each time.
 * One caller in a row (latency), then 10 concurrent callers (throughput).
 *
 *   deno task bench [--calls N]
 *
 * Prints p50/p90/p99 latency and calls per second.
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cpuNow } from "./cpu_time.ts";

const calls = Number(Deno.args[Deno.args.indexOf("--calls") + 1]) || 2000;
const probe = await builtTestPlugin("probe");
const root = await makeWorld({ plugins: { probe } });
const { host } = await WorldServer.open(root, { socket: false });
await host.start();

function percentile(sorted: number[], p: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(3);
}

async function caller(name: string, n: number, times: number[]): Promise<void> {
  const c = WorldClient.of(host, name);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await c.send("probe.noop", {});
    times.push(performance.now() - t0);
    if ("error" in r && r.error) throw new Error(JSON.stringify(r.error));
  }
}

async function round(label: string, callers: number, total: number): Promise<void> {
  const times: number[] = [];
  const cpu0 = cpuNow();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, (_, i) => caller(`c${i}`, Math.ceil(total / callers), times)),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = cpuNow();
  const per = (ms: number) => (ms * 1000 / times.length).toFixed(0);
  times.sort((a, b) => a - b);
  console.log(
    `${label}: ${times.length} calls, p50 ${percentile(times, 0.5)} ms, p90 ${
      percentile(times, 0.9)
    } ms, ` +
      `p99 ${percentile(times, 0.99)} ms, ${(times.length / secs).toFixed(0)} calls/s, ` +
      `CPU µs/call: core ${per(cpu1.host - cpu0.host)}, sandboxes ${
        per(cpu1.sandboxes - cpu0.sandboxes)
      }`,
  );
}

await round("warm-up", 10, 200);
await round("1 caller", 1, calls / 2);
await round("10 callers", 10, calls);
await host.shutdown(100);
await Deno.remove(root, { recursive: true });
