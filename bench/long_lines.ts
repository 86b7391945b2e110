/**
 * Benchmark: long lines from a guest. A stderr line of `--mb` MiB (default
 * 10, and 64: past the 16 MiB line limit) is split in linear time and, past
 * the limit, dropped as it arrives; the process ends with -32002. Prints the
 * time each call took and the sandbox's peak memory (VmHWM) after.
 *
 *   deno run -A bench/long_lines.ts [--mb 10,64]
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";

const arg = Deno.args[Deno.args.indexOf("--mb") + 1];
const sizes = (Deno.args.includes("--mb") ? arg : "10,64").split(",").map(Number);
const probe = await builtTestPlugin("probe");
const root = await makeWorld({ plugins: { probe } });
const { host } = await WorldServer.open(root, { socket: false, sandboxes: 1 });
await host.start();
const caller = WorldClient.of(host, "bench");

/** The peak resident memory of the sandbox subprocesses, in MiB. */
function sandboxPeak(): number {
  let peak = 0;
  for (const p of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(p.name)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${p.name}/cmdline`);
      if (!cmd.includes("sandbox/main.ts")) continue;
      const hwm = Deno.readTextFileSync(`/proc/${p.name}/status`).match(/VmHWM:\s+(\d+)/);
      if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
    } catch { /* gone */ }
  }
  return Math.round(peak);
}

console.log(`sandbox peak before: ${sandboxPeak()} MiB; host rss ${rss()} MiB`);
for (const mb of sizes) {
  const t0 = performance.now();
  const r = await caller.send("probe.spew", { n: 1, len: mb * 2 ** 20 });
  const ms = performance.now() - t0;
  const outcome = "error" in r && r.error ? `-32002 (${r.error.message.split(": it ")[1]})` : "ok";
  console.log(
    `${mb} MiB line: ${ms.toFixed(0)} ms, ${outcome}; sandbox peak ${sandboxPeak()} MiB; ` +
      `host rss ${rss()} MiB`,
  );
}
await host.shutdown(100);

function rss(): number {
  return Math.round(Deno.memoryUsage().rss / 2 ** 20);
}
