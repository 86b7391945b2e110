/**
 * Tier-up in sandboxes (issue 22 item 5): a fresh host (new sandboxes, whose
 * V8 has compiled nothing yet) answers no-op calls one after the other; the
 * first call, then the calls in ranges, and the sandboxes' memory after, for
 * each set of V8 flags, hosts alternated. Lazy compilation with Liftoff is
 * V8's default; "eager" compiles every function with TurboFan up front.
 *
 *   deno run --allow-all bench/tier_up.ts [--rounds N] [--calls N]
 *
 * @module
 */

import type { Host } from "../core/host.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cpuNow } from "./cpu_time.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const rounds = arg("rounds", 2);
const calls = arg("calls", 2000);

/** The V8 flags measured, by name. */
export const MODES: Record<string, string | undefined> = {
  lazy: undefined,
  eager: "--no-liftoff,--no-wasm-lazy-compilation",
};

/** The ranges of call numbers reported (1-based, inclusive). */
const RANGES: [number, number][] = [[1, 1], [2, 10], [11, 100], [101, 300], [301, 1000], [
  1001,
  2000,
]];

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** PSS (KiB) of the host's descendants, from `/proc/<pid>/smaps_rollup`. */
function sandboxPssKiB(host: Host): number {
  let kib = 0;
  for (const sb of host.pool.sandboxes) {
    // setpriv execs deno: the pid is the sandbox's.
    try {
      const text = Deno.readTextFileSync(`/proc/${sb.osPid}/smaps_rollup`);
      kib += Number(/^Pss:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    } catch { /* gone */ }
  }
  return kib;
}

const probe = await builtTestPlugin("probe");
const results: Record<string, Record<string, number[]>> = {};

for (let r = 0; r < rounds; r++) {
  for (const [mode, flags] of Object.entries(MODES)) {
    if (flags === undefined) Deno.env.delete("SAUSAGE_SANDBOX_V8_FLAGS");
    else Deno.env.set("SAUSAGE_SANDBOX_V8_FLAGS", flags);
    const root = await makeWorld({ plugins: { probe } });
    const { host } = await WorldServer.open(root, { socket: false, watch: false });
    await host.start();
    await Promise.all(host.pool.sandboxes.map((s) => s.ready));
    const c = WorldClient.of(host, "tier");
    const times: number[] = [];
    const cpu0 = cpuNow();
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      const res = await c.send("probe.noop", {});
      times.push(performance.now() - t);
      if ("error" in res && res.error) throw new Error(JSON.stringify(res.error));
    }
    const cpu1 = cpuNow();
    const row = results[mode] ??= {};
    for (const [a, b] of RANGES) {
      if (a > calls) continue;
      (row[`calls ${a}–${b}`] ??= []).push(p50(times.slice(a - 1, b)));
    }
    (row["sandbox CPU µs/call"] ??= []).push((cpu1.sandboxes - cpu0.sandboxes) * 1000 / calls);
    (row["sandboxes PSS MiB"] ??= []).push(sandboxPssKiB(host) / 1024);
    console.error(
      `${mode} round ${r + 1}: first ${times[0].toFixed(2)} ms, ` +
        `load ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
    );
    await host.shutdown(100);
    await Deno.remove(root, { recursive: true });
  }
}

const fmt = (xs: number[]) =>
  xs.length > 1 ? `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}` : xs[0].toFixed(3);
console.log(`| p50 ms (ranges over ${rounds} hosts each) | ${Object.keys(MODES).join(" | ")} |`);
console.log(`| --- | ${Object.keys(MODES).map(() => "---").join(" | ")} |`);
for (const key of Object.keys(results.lazy)) {
  console.log(`| ${key} | ${Object.keys(MODES).map((m) => fmt(results[m][key])).join(" | ")} |`);
}
