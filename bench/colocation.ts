/**
 * Benchmark: many processes per sandbox (DECISIONS.md).
 *
 *   deno run -A bench/colocation.ts [--idle 0,100,1000,10000]
 *
 * Prints, for each count of idle processes (detached `probe.serve`, waiting
 * on stdin): the total PSS of the host and its sandboxes, and how long they
 * took to start. Then, with two spinning processes alive: the latency of
 * no-op calls from another caller. Then: the time from `core.kill` of a
 * spinning process that shares its sandbox with 50 waiting ones to its
 * -32002, and whether all 50 still answer.
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { pssMiB } from "./pss.ts";

const arg = (name: string, fallback: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
};
const counts = arg("--idle", "0,100,1000,10000").split(",").map(Number);

const probe = await builtTestPlugin("probe");
const root = await makeWorld({
  plugins: { probe },
  files: { "config/limits.json": JSON.stringify({ processes: 100_000 }) },
});
const { host } = await WorldServer.open(root, { socket: false, watch: false });
await host.start();
const caller = WorldClient.of(host, "bench");
const call = (method: string, params: Record<string, unknown> = {}) => caller.send(method, params);

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1500));
}

function pct(sorted: number[], p: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(2);
}

async function latency(n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await call("probe.noop");
    if (r.error) throw new Error(JSON.stringify(r.error));
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

const idle: string[] = [];
console.log("| idle processes | PSS host + sandboxes | per process | start time |");
console.log("| --- | --- | --- | --- |");
let base = 0;
for (const n of counts) {
  const t0 = performance.now();
  for (let i = idle.length; i < n; i += 100) {
    const batch = Array.from(
      { length: Math.min(100, n - i) },
      () => call("core.call", { method: "probe.serve", params: {}, detach: true }),
    );
    for (const r of await Promise.all(batch)) {
      if (r.error) throw new Error(JSON.stringify(r.error));
      idle.push((r.result as { pid: string }).pid);
    }
  }
  const secs = (performance.now() - t0) / 1000;
  await settle();
  const pss = pssMiB();
  if (n === 0) base = pss;
  const per = n > 0 ? `${((pss - base) * 1024 / n).toFixed(0)} KiB` : "-";
  console.log(`| ${n} | ${pss.toFixed(0)} MiB | ${per} | ${secs.toFixed(1)} s |`);
}
for (const pid of idle) call("core.stop", { pid });
while (host.table.size > 0) await new Promise((r) => setTimeout(r, 100));

const quiet = await latency(500);
console.log(
  `\nno-op calls, nothing else running: p50 ${pct(quiet, 0.5)} ms, p99 ${pct(quiet, 0.99)} ms`,
);
for (let i = 0; i < 2; i++) {
  caller.notify("core.call", { method: "probe.spin", params: {}, detach: true });
}
await new Promise((r) => setTimeout(r, 500));
const spinners = host.table.all().filter((p) => p.method === "spin");
const busy = await latency(500);
console.log(`no-op calls, two spinners alive: p50 ${pct(busy, 0.5)} ms, p99 ${pct(busy, 0.99)} ms`);
for (const s of spinners) await call("core.kill", { pid: s.pid });

const waiters: string[] = [];
for (let i = 0; i < 50; i++) {
  waiters.push(
    ((await call("core.call", { method: "probe.serve", params: {}, detach: true })).result as {
      pid: string;
    }).pid,
  );
}
const kills: number[] = [];
for (let round = 0; round < 20; round++) {
  const spin = call("probe.spin");
  let pid: string | undefined;
  while (!pid) {
    pid = host.table.all().find((p) => p.method === "spin")?.pid;
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 20));
  const t0 = performance.now();
  call("core.kill", { pid });
  const r = await spin;
  kills.push(performance.now() - t0);
  if (r.error?.code !== -32002) throw new Error(`kill: ${JSON.stringify(r)}`);
  // The guest itself is gone once its sandbox's load drops back.
}
kills.sort((a, b) => a - b);
const alive = host.table.all().filter((p) => p.method === "serve").length;
const stops = await Promise.all(waiters.map((pid) => call("core.stop", { pid })));
console.log(
  `kill of a spinner beside 50 waiters: -32002 after p50 ${pct(kills, 0.5)} ms, max ${
    pct(kills, 1)
  } ms (20 rounds); ${alive}/50 neighbours alive, ${
    stops.filter((s) => !s.error).length
  }/50 stopped cleanly`,
);

await host.shutdown(100);
await Deno.remove(root, { recursive: true });
