/**
 * Benchmark: a no-op SDK plugin (`bigsource.max`, whose main module imports
 * WASI 0.2 functions directly) per process, on the lean path (preview 1 and
 * the canonical-ABI binding of `sandbox/canonical_abi/`) and on jco's
 * glue, side by side in one run, with the probe (no SDK, preview 1 only) on
 * the lean path as the floor. In this process (no core, no pipe), pooled
 * memory, preemptible: the first 100 processes (cold), then rounds of
 * 1,000 after 2,000 warm-up processes, the order turning each round.
 *
 * `deno run -A bench/sdk_engine.ts [--quick] [--also name=component.wasm …]`:
 * `--also` adds components to run on the lean path with the same request
 * (DECISIONS.md, "SDK plugins on the lean path", measured a variant of the
 * SDK whose stdin is read through preview 1 so).
 *
 * @module
 */

import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { ourInstance } from "./alternatives/our_instance.ts";
import process from "node:process";

const p50 = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
const range = (xs: number[], digits = 3) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** One line of JSON-RPC. */
function request(method: string): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({ jsonrpc: "2.0", id: "b", method, params: {} }) + "\n",
  );
}

/** Measures each run; resolves with the table's rows. */
export async function sdkEngineRows(
  quick = false,
  also: Record<string, string> = {},
): Promise<string[][]> {
  const bigsource = await builtTestPlugin("bigsource");
  const probe = await builtTestPlugin("probe");
  const world = await makeWorld({ plugins: { bigsource, probe } });
  const runs: Record<string, [(r: Uint8Array) => Promise<number>, Uint8Array]> = {
    "SDK no-op, lean path": [
      await ourInstance(bigsource, world, { engine: "auto" }),
      request("max"),
    ],
    "SDK no-op, jco's glue": [
      await ourInstance(bigsource, world, { engine: "jco" }),
      request("max"),
    ],
    "probe no-op (no SDK), lean path": [
      await ourInstance(probe, world, { engine: "auto" }),
      request("noop"),
    ],
  };
  for (const [name, wasm] of Object.entries(also)) {
    runs[`${name}, lean path`] = [
      await ourInstance(wasm, world, { engine: "auto" }),
      request("max"),
    ];
  }
  const names = Object.keys(runs);
  const cold: Record<string, number> = {};
  for (const n of names) {
    const t: number[] = [];
    for (let i = 0; i < 100; i++) t.push(await runs[n][0](runs[n][1]));
    cold[n] = p50(t);
  }
  const warm = quick ? 300 : 2000;
  for (const n of names) for (let i = 0; i < warm; i++) await runs[n][0](runs[n][1]);
  const rounds = quick ? 2 : 5;
  const per = quick ? 300 : 1000;
  const warmP50: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const n of order) {
      const times: number[] = [];
      const c0 = process.cpuUsage();
      for (let i = 0; i < per; i++) times.push(await runs[n][0](runs[n][1]));
      const c = process.cpuUsage(c0);
      (warmP50[n] ??= []).push(p50(times));
      (cpu[n] ??= []).push((c.user + c.system) / per);
    }
  }
  await Deno.remove(world, { recursive: true }).catch(() => {});
  return names.map((n) => [n, cold[n].toFixed(3), range(warmP50[n]), range(cpu[n], 0)]);
}

if (import.meta.main) {
  const also: Record<string, string> = {};
  Deno.args.forEach((a, i) => {
    if (a === "--also") {
      const [name, path] = Deno.args[i + 1].split("=");
      also[name] = path;
    }
  });
  const rows = await sdkEngineRows(Deno.args.includes("--quick"), also);
  console.log(`load: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(
    "| one process in process | first 100, p50 ms | warm p50 ms | CPU µs/process |\n| --- | --- | --- | --- |",
  );
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
}
