/**
 * The targets of TypeScript plugins (issue 41, item 2), as rows of
 * `deno task bench` (section 7), or alone:
 *
 *   deno run -A bench/typescript_rows.ts [--quick]
 *
 * 1. A no-op call of a TypeScript plugin through the core, one caller, after
 *    a warm-up (target ≤ 3 ms p50), beside the Rust probe's in the same host.
 * 2. 1,000 idle TypeScript processes (detached calls whose method ran and
 *    then blocks reading stdin): the PSS they add to the host and its
 *    sandboxes (target ≤ 2 GiB).
 * 3. Edit → answer under `sausage dev`: from writing a changed `plugin.ts`
 *    to the first call that answers with the change (target ≤ 5 s).
 *
 * The machine's load is printed with the rows: on a shared 2-core machine
 * they are ranges, not figures.
 *
 * @module
 */

import { spawnCollecting } from "../tests/helpers/author.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { buildTsPlugin } from "../core/typescript/ts_build.ts";
import { IDLE_MS } from "../core/typescript/ts_compiler.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { pssMiB } from "./pss.ts";
import type { BenchRow } from "./bench_row.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");

/** One row, as `bench/suite.ts` prints them (`bench_row.ts`). */
export type TsRow = BenchRow;

/** The bench's TypeScript plugin: a no-op, and a method that waits until stdin ends. */
const PLUGIN = `/** Answers nothing at once. */
export function noop(): null {
  return null;
}

declare function __in(): string | undefined;

/** Waits until stdin ends (the runtime's own read), like a server between requests. */
export function idle(): null {
  while (__in() !== undefined) { /* a line: keep waiting */ }
  return null;
}
`;

/** Percentile `p` of sorted `s`. */
function at(s: number[], p: number): number {
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

/** `n` no-op calls of `method`, one caller; the row. */
async function noops(c: WorldClient, what: string, method: string, n: number): Promise<TsRow> {
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await c.send(method, {});
    if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    times.push(performance.now() - t);
  }
  const s = times.sort((a, b) => a - b);
  return {
    what,
    p50: at(s, 0.5),
    p99: at(s, 0.99),
    perSecond: n / ((performance.now() - t0) / 1000),
    runs: n,
  };
}

/** Rows 1 and 2: calls and idle processes in one host. */
async function callRows(quick: boolean): Promise<TsRow[]> {
  const dir = await Deno.makeTempDir({ prefix: "sausage-bench-ts-" });
  await Deno.writeTextFile(`${dir}/plugin.ts`, PLUGIN);
  const tsbench = `${dir}/tsbench.wasm`;
  await buildTsPlugin(dir, "tsbench", tsbench);
  const probe = await builtTestPlugin("probe");
  const world = await makeWorld({
    plugins: { tsbench, probe },
    files: {
      "config/limits.json": JSON.stringify({ processes: 100_000, call_timeout_ms: 3_600_000 }),
    },
  });
  const { host } = await WorldServer.open(world, { socket: false, watch: false });
  const rows: TsRow[] = [];
  try {
    await host.start();
    await Promise.all(host.pool.sandboxes.map((s) => s.ready));
    const c = WorldClient.of(host, "bench-ts");
    const n = quick ? 300 : 2000;
    await noops(c, "warm-up", "tsbench.noop", quick ? 100 : 300 * host.pool.sandboxes.length);
    await noops(c, "warm-up", "probe.noop", quick ? 100 : 300 * host.pool.sandboxes.length);
    rows.push(await noops(c, "TypeScript no-op, 1 caller (target ≤ 3 ms p50)", "tsbench.noop", n));
    rows.push(await noops(c, "Rust probe no-op beside it, 1 caller", "probe.noop", n));

    const count = quick ? 100 : 1000;
    await new Promise((r) => setTimeout(r, 1500));
    const base = pssMiB();
    const t0 = performance.now();
    // Notifications: a call of `idle` has no answer until stdin ends, so none is awaited.
    const idle = () => host.table.all().filter((p) => p.method === "idle");
    for (let i = 0; i < count; i += 100) {
      for (let j = i; j < Math.min(count, i + 100); j++) {
        c.notify("core.call", { method: "tsbench.idle", params: {}, detach: true });
      }
      while (idle().length < Math.min(count, i + 100)) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const pids = idle().map((p) => p.pid);
    const started = (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 1500));
    const alive = idle().length;
    const added = pssMiB() - base;
    rows.push({
      what: `${count} idle TypeScript processes: PSS added (target ≤ 2 GiB per 1,000)`,
      p50: NaN,
      p99: NaN,
      perSecond: NaN,
      runs: count,
      note: `+${added.toFixed(0)} MiB (${(added * 1024 / count).toFixed(0)} KiB each; ` +
        `${alive} alive; started in ${started.toFixed(1)} s)`,
    });
    for (const pid of pids) c.notify("core.stop", { pid });
    while (host.table.size > 0) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await host.shutdown(200);
    await Deno.remove(world, { recursive: true }).catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return rows;
}

/** Waits until `text()` matches `pattern` past `from`. */
async function waitFor(text: () => string, pattern: RegExp, from = 0, ms = 300_000) {
  const end = Date.now() + ms;
  while (!pattern.test(text().slice(from))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}:\n${text()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Row 3: edit → answer under `sausage dev`, `edits` times. */
async function devRow(edits: number): Promise<TsRow> {
  const world = await makeWorld({ files: { "config/boot.json": "[]" } });
  const sausage = (...args: string[]) =>
    new Deno.Command(`${ROOT}/sausage`, { args, stdout: "piped", stderr: "piped" }).output();
  const made = await sausage("new", world, "tsdev", "--lang", "ts");
  if (!made.success) throw new Error(new TextDecoder().decode(made.stderr));
  const childRun = spawnCollecting(`${ROOT}/sausage`, {
    args: ["dev", world],
    stdin: "null",
    stdout: "null",
  });
  const child = childRun.child;
  const stderr = childRun.stderr;
  const times: number[] = [];
  const active: number[] = [];
  try {
    await waitFor(stderr, /dev: running .*watching the source of tsdev/);
    const source = `${world}/plugins/tsdev/source/plugin.ts`;
    const text = await Deno.readTextFile(source);
    for (let i = 1; i <= edits; i++) {
      const mark = stderr().length;
      const t = performance.now();
      await Deno.writeTextFile(
        source,
        `${text}\n/** The version. */\nexport function version(): string {\n  return "${i}";\n}\n`,
      );
      await waitFor(stderr, /tsdev is active|tsdev was not built/, mark);
      active.push(performance.now() - t);
      const r = await sausage("call", world, "tsdev.version");
      const out = new TextDecoder().decode(r.stdout).trim();
      if (out !== `"${i}"`) throw new Error(`edit ${i} answered ${out}:\n${stderr().slice(mark)}`);
      times.push(performance.now() - t);
      // Past the compiler worker's idle end (`ts_compiler.ts`), as a person's next edit
      // usually is (dev keeps the compiler loaded: `keepCompilerLoaded`).
      await new Promise((r) => setTimeout(r, IDLE_MS + 2000));
    }
  } finally {
    child.kill("SIGINT");
    await child.status;
    await childRun.read;
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
  const s = [...times].sort((a, b) => a - b);
  return {
    what: "TypeScript edit → answer under dev (target ≤ 5 s)",
    p50: at(s, 0.5),
    p99: at(s, 0.99),
    perSecond: NaN,
    runs: edits,
    note: `each: ${times.map((t) => (t / 1000).toFixed(1)).join(", ")} s, active after ` +
      `${active.map((t) => (t / 1000).toFixed(1)).join(", ")} s (the template's 2 tests, ` +
      "the build, the activation; then a sausage call)",
  };
}

/** The rows of section 7 of `deno task bench`. */
export async function typescriptRows(quick: boolean): Promise<TsRow[]> {
  return [...await callRows(quick), await devRow(quick ? 2 : 5)];
}

if (import.meta.main) {
  const quick = Deno.args.includes("--quick");
  const load = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  const before = load();
  const rows = await typescriptRows(quick);
  console.log(`TypeScript rows; load before ${before}, after ${load()}`);
  console.log("| what | p50 ms | p99 ms | calls/s | note |\n| --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.what} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.perSecond.toFixed(0)} | ${
        r.note ?? ""
      } |`,
    );
  }
}
