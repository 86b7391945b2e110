/**
 * Benchmark: another caller's calls beside a process that floods its
 * stdout (`looper.stdout`, `println!` in a loop), in one sandbox, with the
 * output window (`output_window_kib`, default 16) and without one (1 GiB:
 * as before it, the flood fills the pipe ahead of every other frame).
 *
 *   deno run -A bench/output_flood.ts [--rounds 3] [--calls 60] [--windows 16,64,1048576]
 *
 * Per window, rounds alternating: `probe.noop` p50, p90 and max beside the
 * flood, and the flood's lines a second that reached the core; first a row
 * with no flood, for the machine's own latency.
 */

import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";

function arg(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 && Deno.args[i + 1] ? Deno.args[i + 1] : fallback;
}
const rounds = Number(arg("rounds", "3")) || 3;
const calls = Number(arg("calls", "60")) || 60;
const windows = arg("windows", "16,64,1048576").split(",").map(Number);

const looper = await builtTestPlugin("looper");
const probe = await builtTestPlugin("probe");

/** One world per window (its `config/limits.json`). */
const worlds = new Map<number, string>();
for (const w of windows) {
  worlds.set(
    w,
    await makeWorld({
      plugins: { looper, probe },
      files: { "config/limits.json": JSON.stringify({ output_window_kib: w }) },
    }),
  );
}

const q = (s: number[], f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))];

/** `calls` no-op calls beside a flood (or none); latencies sorted, and the flood's lines a second. */
async function round(window: number, flood: boolean): Promise<{ ms: number[]; rate: number }> {
  const { host } = await WorldServer.open(worlds.get(window)!, {
    socket: false,
    sandboxes: 1,
    watch: false,
    sdkDir: null,
  });
  await host.start();
  const caller = WorldClient.of(host, "bench");
  let lines = 0;
  // Counts the flood's lines where the supervisor hands them on (a benchmark's tap on the router).
  const route = host.router.fromProcess.bind(host.router);
  host.router.fromProcess = (p, line) => {
    if (p.plugin === "looper") lines++;
    route(p, line);
  };
  try {
    await caller.send("probe.noop", {}); // warm
    const looping = flood ? caller.send("looper.stdout", {}) : null;
    await new Promise((r) => setTimeout(r, 300));
    const from = lines;
    const t0 = performance.now();
    const ms: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      const r = await caller.send("probe.noop", {});
      if (r.error) throw new Error(JSON.stringify(r.error));
      ms.push(performance.now() - t);
    }
    const rate = (lines - from) / ((performance.now() - t0) / 1000);
    if (looping) {
      const pid = host.table.all().find((p) => p.plugin === "looper")?.pid;
      if (pid) await caller.send("core.kill", { pid });
      await looping;
    }
    return { ms: ms.sort((a, b) => a - b), rate };
  } finally {
    await caller.close();
    await host.shutdown(100);
  }
}

const results = new Map<string, { p50: number[]; p90: number[]; max: number[]; rate: number[] }>();
const rows: [string, number, boolean][] = [
  ["no flood", windows[0], false],
  ...windows.map((w) => [`flood, window ${w} KiB`, w, true] as [string, number, boolean]),
];
for (let r = 0; r < rounds; r++) {
  for (const [name, w, flood] of r % 2 ? [...rows].reverse() : rows) {
    const { ms, rate } = await round(w, flood);
    const s = results.get(name) ?? { p50: [], p90: [], max: [], rate: [] };
    s.p50.push(q(ms, 0.5));
    s.p90.push(q(ms, 0.9));
    s.max.push(ms[ms.length - 1]);
    s.rate.push(rate);
    results.set(name, s);
  }
}

const range = (v: number[], d = 1) => `${Math.min(...v).toFixed(d)}–${Math.max(...v).toFixed(d)}`;
console.log(`load: ${Deno.loadavg().map((l) => l.toFixed(2)).join(", ")}; ${rounds} rounds`);
console.log("| beside | noop p50 ms | p90 ms | max ms | flood lines/s at the core |");
console.log("| --- | --- | --- | --- | --- |");
for (const [name] of rows) {
  const s = results.get(name)!;
  console.log(
    `| ${name} | ${range(s.p50)} | ${range(s.p90)} | ${range(s.max)} | ${range(s.rate, 0)} |`,
  );
}
for (const root of worlds.values()) await Deno.remove(root, { recursive: true }).catch(() => {});
