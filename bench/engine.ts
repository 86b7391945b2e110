/**
 * Benchmark: the same component on our preview-1 binding and on jco's
 * glue, side by side in one run (`deno run -A bench/engine.ts [--quick]`,
 * also part 5 of `bench/suite.ts`):
 *
 * - one no-op process in this process (no core, no pipe), pooled memory,
 *   preemptible: the first 100 processes of a fresh sandbox (cold, while V8
 *   tiers up), then rounds of 1,000 after 2,000 warm-up processes,
 *   alternating which engine goes first; p50 per round and CPU per process;
 * - a no-op call through a host (core, pipe, sandbox), one caller.
 *
 * The machine is shared: read ranges, and the two engines against each other.
 *
 * @module
 */

import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { ourInstance } from "./alternatives/our_instance.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import process from "node:process";

/** One row of the engine table. */
export interface EngineRow {
  what: string;
  p1: string;
  jco: string;
}

const p50 = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
const range = (xs: number[], digits = 3) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Measures both engines on the probe plugin; resolves with the rows. */
export async function engineRows(quick = false): Promise<EngineRow[]> {
  const probe = await builtTestPlugin("probe");
  const world = await makeWorld({ plugins: { probe } });
  const noop = new TextEncoder().encode(
    JSON.stringify({ jsonrpc: "2.0", id: "p", method: "noop", params: {} }) + "\n",
  );
  const engines = { p1: "auto", jco: "jco" } as const;
  const runs = {
    p1: await ourInstance(probe, world, { engine: engines.p1 }),
    jco: await ourInstance(probe, world, { engine: engines.jco }),
  };
  const rows: EngineRow[] = [];
  const cold: Record<string, number[]> = { p1: [], jco: [] };
  for (const e of ["p1", "jco"] as const) {
    for (let i = 0; i < 100; i++) cold[e].push(await runs[e](noop));
  }
  rows.push({
    what: "one process in process, first 100 (cold, tier-up), p50 ms",
    p1: p50(cold.p1).toFixed(3),
    jco: p50(cold.jco).toFixed(3),
  });
  const warm = quick ? 300 : 2000;
  for (const e of ["p1", "jco"] as const) for (let i = 0; i < warm; i++) await runs[e](noop);
  const rounds = quick ? 2 : 5;
  const per = quick ? 300 : 1000;
  const warmP50: Record<string, number[]> = { p1: [], jco: [] };
  const cpu: Record<string, number[]> = { p1: [], jco: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? ["jco", "p1"] as const : ["p1", "jco"] as const;
    for (const e of order) {
      const times: number[] = [];
      const c0 = process.cpuUsage();
      for (let i = 0; i < per; i++) times.push(await runs[e](noop));
      const c = process.cpuUsage(c0);
      warmP50[e].push(p50(times));
      cpu[e].push((c.user + c.system) / per);
    }
  }
  rows.push({
    what: `one process in process, warm (after ${warm}), p50 ms over ${rounds} rounds`,
    p1: range(warmP50.p1),
    jco: range(warmP50.jco),
  });
  rows.push({
    what: "one process in process, warm, CPU µs per process",
    p1: range(cpu.p1, 0),
    jco: range(cpu.jco, 0),
  });
  const core: Record<string, string> = {};
  for (const e of ["p1", "jco"] as const) {
    Deno.env.set("SAUSAGE_ENGINE", e);
    const { host } = await WorldServer.open(world, { socket: false, watch: false, sandboxes: 1 });
    try {
      await host.start();
      const c = WorldClient.of(host, "bench");
      for (let i = 0; i < (quick ? 200 : 1000); i++) await c.send("probe.noop", {});
      const times: number[] = [];
      for (let i = 0; i < (quick ? 300 : 2000); i++) {
        const t = performance.now();
        await c.send("probe.noop", {});
        times.push(performance.now() - t);
      }
      core[e] = p50(times).toFixed(3);
    } finally {
      await host.shutdown(200);
      Deno.env.delete("SAUSAGE_ENGINE");
    }
  }
  rows.push({ what: "no-op call through the core, 1 caller, p50 ms", p1: core.p1, jco: core.jco });
  await Deno.remove(world, { recursive: true }).catch(() => {});
  return rows;
}

if (import.meta.main) {
  const rows = await engineRows(Deno.args.includes("--quick"));
  console.log("| one no-op process | preview-1 binding | jco's glue |\n| --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.what} | ${r.p1} | ${r.jco} |`);
}
