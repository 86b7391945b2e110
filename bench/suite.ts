/**
 * The benchmark (`deno task bench`): calls through the core, side by side
 * with the ways a user might run the same component instead, on this
 * machine in one run. Writes `bench/results/<date>.json` and `.md`.
 *
 *   deno task bench [--quick]
 *
 * 1. No-op and `notes.list` through the core with 1, 10 and 100 callers; the
 *    first 100 calls of new sandboxes (cold) apart from the rest (warm: after
 *    {@link WARM_PER_SANDBOX} processes of the module in each sandbox); a
 *    no-op's p99 beside 100 flooding callers (fairness across callers).
 * 2. A nested call and a fan-out of 10 from one process, each warm as the
 *    rows above (after as many processes of its own calls).
 * 3. Host start to first answer (warm and cold cache); `sausage call` end to end.
 * 4. Alternatives as ratios to ours: a plain function call; our WASI host
 *    in this process without the core and the pipe (what isolation costs);
 *    `node:wasi` per call in this process; jco's preview2-shim, a fresh
 *    instance per call in this process; a Deno process per call with the
 *    pre-transpiled component and the shim; `jco run` per call. The jco
 *    ones are in `bench/alternatives/`.
 * 5. The same component on our preview-1 binding and on jco's glue, side by
 *    side: one process in this process, cold and warm, and a no-op call
 *    through the core (`bench/engine.ts`).
 * 6. A no-op call on a remote worker over NATS beside a local sandbox, 1 and
 *    10 callers (`bench/remote_calls.ts`; none without nats-server).
 * 7. TypeScript plugins' targets (`bench/typescript_rows.ts`): a no-op call,
 *    1,000 idle processes' memory, edit → answer under `dev`.
 */

import type { Host } from "../core/host.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { cacheDir } from "../core/paths.ts";
import { inProcess, subprocess } from "./alternatives/jco_shim.ts";
import { ourInstance } from "./alternatives/our_instance.ts";
import { type EngineRow, engineRows } from "./engine.ts";
import { remoteRows } from "./remote_calls.ts";
import { typescriptRows } from "./typescript_rows.ts";
import { besideFlood } from "./flood_calls.ts";
import { cpuNow } from "./cpu_time.ts";
import { WASI } from "node:wasi";
import * as fs from "node:fs";
import type { BenchRow } from "./bench_row.ts";

const quick = Deno.args.includes("--quick");
const N = quick ? 300 : 2000;
/**
 * Processes of a module each sandbox runs before its warm rows: V8 tiers a
 * module's code up over its first 1,000–2,000 processes in a sandbox
 * (`bench/tier_up.ts`). Until 2026-12-04 the warm-up was 2,000 calls in all,
 * ~670 per sandbox, so the warm rows still held part of the tier-up.
 */
const WARM_PER_SANDBOX = quick ? 100 : 2000;
const root = new URL("..", import.meta.url).pathname;

/** One measured row. */
type Row = BenchRow;
const rows: Row[] = [];

function summary(what: string, times: number[], wallMs: number, note?: string): Row {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))];
  const row = {
    what,
    p50: at(0.5),
    p99: at(0.99),
    perSecond: times.length / (wallMs / 1000),
    runs: times.length,
    note,
  };
  rows.push(row);
  console.error(`${what}: p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms`);
  return row;
}

/**
 * `total` calls of `method` from `callers` concurrent callers. The row's
 * note says the core's CPU per call: this process (the event loop, the
 * journal's worker, V8's helpers; the callers' own share is small) and the
 * sandboxes, from `/proc`.
 */
async function calls(
  host: Host,
  what: string,
  method: string,
  params: Record<string, unknown>,
  callers: number,
  total: number,
): Promise<void> {
  const times: number[] = [];
  let left = total;
  const cpu0 = cpuNow();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: callers }, async (_, i) => {
    const c = WorldClient.of(host, `bench${i}`);
    while (left-- > 0) {
      const t = performance.now();
      const r = await c.send(method, params);
      times.push(performance.now() - t);
      if ("error" in r && r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    }
  }));
  const wallMs = performance.now() - t0;
  const cpu1 = cpuNow();
  const per = (ms: number) => (ms * 1000 / times.length).toFixed(0);
  summary(
    what,
    times,
    wallMs,
    `core CPU ${per(cpu1.host - cpu0.host)} µs per call, sandboxes ${
      per(cpu1.sandboxes - cpu0.sandboxes)
    }`,
  );
}

const probe = await builtTestPlugin("probe");
const notes = await cachedBuild(`${root}examples/notes`, "bench", "notes");
const world = await makeWorld({ plugins: { probe, notes } });

// 1 and 2: calls through the core.
{
  const { host } = await WorldServer.open(world, { socket: false, watch: false });
  await host.start();
  // Cold and warm apart: V8 tiers a module's code up over its first 1,000–2,000
  // processes in a sandbox (runtime.md; `bench/tier_up.ts`).
  await Promise.all(host.pool.sandboxes.map((s) => s.ready));
  await calls(host, "no-op, 1 caller, cold: the first 100 calls", "probe.noop", {}, 1, 100);
  /** `WARM_PER_SANDBOX` processes per sandbox of calls of `method`, each `processes` processes. */
  const warmUp = async (method: string, params: Record<string, unknown> = {}, processes = 1) => {
    const total = Math.ceil(WARM_PER_SANDBOX * host.pool.sandboxes.length / processes);
    await calls(host, "warm-up", method, params, 10, total);
    rows.pop();
  };
  await warmUp("probe.noop");
  for (const callers of [1, 10, 100]) {
    await calls(host, `no-op, ${callers} caller(s), warm`, "probe.noop", {}, callers, N);
  }
  {
    const flood = await besideFlood(host, 100, N / 4);
    summary("no-op p99 beside 100 flooding callers", flood.times, flood.wallMs, flood.note);
  }
  await calls(host, "notes.add (setup)", "notes.add", { text: "milk" }, 1, 20);
  rows.pop();
  await warmUp("notes.list");
  for (const callers of [1, 10, 100]) {
    await calls(host, `notes.list, ${callers} caller(s)`, "notes.list", {}, callers, N / 2);
  }
  // Warm as the rows above: a nested call runs code of the module (its call, the answer's
  // parse) that a no-op does not, and V8 tiers each function up on its own.
  const nested = { method: "probe.noop", params: {} };
  await warmUp("probe.call", nested, 2);
  await calls(host, "nested call (probe → probe.noop)", "probe.call", nested, 1, N / 2);
  const ten = { calls: Array.from({ length: 10 }, () => nested) };
  await warmUp("probe.fanout", ten, 11);
  await calls(host, "fan-out of 10 from one process", "probe.fanout", ten, 1, N / 10);

  // 3b: `sausage call` end to end against this running host.
  const control = await ControlServer.start(host);
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < (quick ? 3 : 10); i++) {
    const t = performance.now();
    const out = await new Deno.Command(`${root}sausage`, {
      args: ["call", world, "probe.noop"],
      stdout: "null",
      stderr: "null",
    }).output();
    if (!out.success) throw new Error("sausage call failed");
    times.push(performance.now() - t);
  }
  summary("`sausage call` end to end, running host", times, performance.now() - t0);
  await control.close();
  await host.shutdown(200);
}

// 3a: host start to first answer, warm and cold cache.
for (const [label, cache] of [["warm", cacheDir()], ["cold", ""]] as const) {
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < (quick ? 2 : 4); i++) {
    const dir = cache || await Deno.makeTempDir({ prefix: "sausage-bench-cache-" });
    const t = performance.now();
    const { host } = await WorldServer.open(world, { socket: false, watch: false, cacheDir: dir });
    await host.start();
    await WorldClient.of(host, "bench").send("probe.noop", {});
    times.push(performance.now() - t);
    await host.shutdown(100);
    if (!cache) await Deno.remove(dir, { recursive: true });
  }
  summary(`host start to first answer, ${label} cache`, times, performance.now() - t0);
}

// 4: alternatives.
const ours = rows.find((r) => r.what === "no-op, 1 caller(s), warm")!;
{
  const request = JSON.stringify({ jsonrpc: "2.0", id: "p", method: "noop", params: {} });
  const f = (line: string) =>
    JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(line).id, result: {} });
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) {
    const t = performance.now();
    f(request);
    times.push(performance.now() - t);
  }
  summary("alternative: a plain function (JSON in, JSON out)", times, performance.now() - t0);
}
/** A row that could not be measured, and why. */
function unmeasured(what: string, e: unknown): void {
  rows.push({ what, p50: NaN, p99: NaN, perSecond: NaN, runs: 0, note: String(e) });
}
const noop = new TextEncoder().encode(
  JSON.stringify({ jsonrpc: "2.0", id: "p", method: "noop", params: {} }) + "\n",
);
{
  // Our sandbox's instance, started and run to its answer as bench/instance_cost.ts does.
  const what = "alternative: our WASI host in this process, no core or pipe";
  try {
    const once = await ourInstance(probe, world);
    for (let i = 0; i < 20; i++) await once(noop); // warm-up
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < (quick ? 100 : 500); i++) times.push(await once(noop));
    summary(what, times, performance.now() - t0, "start to answer");
  } catch (e) {
    unmeasured(what, e);
  }
}
{
  // The same program as a preview-1 module under node:wasi, a fresh instance per call.
  const core = `${cacheDir()}/target/offline-wasip1/wasm32-wasip1/release/probe.wasm`;
  try {
    const mod = await WebAssembly.compile(await Deno.readFile(core));
    const req = await Deno.makeTempFile();
    await Deno.writeTextFile(req, '{"jsonrpc":"2.0","id":"p","method":"noop","params":{}}\n');
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < (quick ? 100 : 500); i++) {
      const t = performance.now();
      const stdin = fs.openSync(req, "r");
      const stdout = fs.openSync("/dev/null", "w");
      const wasi = new WASI({
        version: "preview1",
        args: [],
        env: {},
        stdin,
        stdout,
        returnOnExit: true,
      });
      const inst = await WebAssembly.instantiate(
        mod,
        wasi.getImportObject() as WebAssembly.Imports,
      );
      wasi.start(inst);
      fs.closeSync(stdin);
      fs.closeSync(stdout);
      times.push(performance.now() - t);
    }
    summary("alternative: node:wasi in this process, no isolation", times, performance.now() - t0);
  } catch (e) {
    rows.push({
      what: "alternative: node:wasi",
      p50: NaN,
      p99: NaN,
      perSecond: NaN,
      runs: 0,
      note: String(e),
    });
  }
}
{
  // jco's glue (async instantiation, no JSPI) on the shim's browser build, whose
  // stdin and stdout can be set per instance (the Node.js build has the process's).
  const what = "alternative: jco's preview2-shim in this process, a fresh instance per call, " +
    "no isolation";
  let dir = "";
  try {
    const jco = await inProcess(probe);
    dir = jco.dir;
    const once = async () => {
      const out = await jco.once(noop);
      if (!out.includes('"result"')) throw new Error(`no answer on stdout: ${out}`);
    };
    for (let i = 0; i < 10; i++) await once(); // warm-up
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < (quick ? 100 : 500); i++) {
      const t = performance.now();
      await once();
      times.push(performance.now() - t);
    }
    summary(what, times, performance.now() - t0);
  } catch (e) {
    unmeasured(what, e);
  }
  if (dir) await Deno.remove(dir, { recursive: true });
}
{
  // The component transpiled once; each call a `deno run` of a runner that imports it.
  const what = "alternative: a Deno process per call, pre-transpiled with jco's preview2-shim";
  let dir = "";
  try {
    const command = await subprocess(probe);
    dir = command.dir;
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < (quick ? 3 : 10); i++) {
      const t = performance.now();
      const child = new Deno.Command(Deno.execPath(), {
        args: command.args,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(noop);
      await w.close();
      const out = await child.output();
      const text = new TextDecoder().decode(out.stdout);
      if (!out.success || !text.includes('"result"')) {
        throw new Error(`no answer: ${text} ${new TextDecoder().decode(out.stderr)}`);
      }
      times.push(performance.now() - t);
    }
    summary(what, times, performance.now() - t0);
  } catch (e) {
    unmeasured(what, e);
  }
  if (dir) await Deno.remove(dir, { recursive: true });
}
{
  const node = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => fs.existsSync(p));
  const jco = `${root}node_modules/@bytecodealliance/jco/src/jco.js`;
  if (node && fs.existsSync(jco)) {
    const times: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < (quick ? 2 : 5); i++) {
      const t = performance.now();
      const child = new Deno.Command(node, {
        args: [jco, "run", probe],
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":"p","method":"noop"}\n'));
      await w.close();
      await child.status;
      times.push(performance.now() - t);
    }
    summary("alternative: `jco run` per call (a Node process each)", times, performance.now() - t0);
  } else {
    rows.push({
      what: "alternative: `jco run`",
      p50: NaN,
      p99: NaN,
      perSecond: NaN,
      runs: 0,
      note: "node not found",
    });
  }
}

// 5: the two engines, side by side.
let engines: EngineRow[] = [];
try {
  engines = await engineRows(quick);
} catch (e) {
  engines = [{ what: `not measured: ${e}`, p1: "", jco: "" }];
}

// 6: a no-op on a remote worker over NATS beside a local sandbox (`remote_calls.ts`).
try {
  rows.push(...await remoteRows(N));
} catch (e) {
  rows.push({
    what: "no-op on a remote worker",
    p50: NaN,
    p99: NaN,
    perSecond: NaN,
    runs: 0,
    note: String(e),
  });
}

// 7: TypeScript plugins' targets (`typescript_rows.ts`).
try {
  rows.push(...await typescriptRows(quick));
} catch (e) {
  unmeasured("TypeScript plugins' rows", e);
}

// Results.
const date = new Date().toISOString().slice(0, 10);
const load = Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
const md = [
  `Sausage benchmark, ${
    new Date().toISOString()
  }; ${navigator.hardwareConcurrency} cores, load ${load}; ${quick ? "--quick" : "full"} run.`,
  "",
  "| what | p50 ms | p99 ms | calls/s | vs our no-op p50 |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map((r) =>
    `| ${r.what} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.perSecond.toFixed(0)} | ${
      (r.p50 / ours.p50).toFixed(2)
    }x |${r.note ? ` ${r.note}` : ""}`
  ),
  "",
  "| the same component, one no-op process | our preview-1 binding | jco's glue |",
  "| --- | --- | --- |",
  ...engines.map((r) => `| ${r.what} | ${r.p1} | ${r.jco} |`),
].join("\n");
await Deno.mkdir(`${root}bench/results`, { recursive: true });
await Deno.writeTextFile(
  `${root}bench/results/${date}.json`,
  JSON.stringify({ date, load, rows, engines }, null, 2),
);
await Deno.writeTextFile(`${root}bench/results/${date}.md`, md + "\n");
console.log(md);
