/**
 * Benchmark: a no-op call on a remote worker (over NATS on loopback) beside
 * the same call on a local sandbox, in one run, rounds interleaved: one
 * caller (latency) and 10 callers (throughput); a read of a small world
 * file (`/hello.txt`, 13 bytes, unchanged: after its first read the worker
 * keeps it and answers its opens itself, `core/remote/kept_files.ts`; the
 * note says how many files the worker keeps) by a remote process beside a
 * local one; and
 * the host's CPU per call of each (this process's user + system time over
 * the round, divided by its calls: the host runs here), each remote row's
 * beside its local one's (and the read alone: the read's less the no-op's). A real nats-server
 * with credentials, the host in this process (one sandbox), one worker
 * (`sausage worker`, one sandbox) as a subprocess.
 *
 *   deno run --allow-all bench/remote_calls.ts [--calls N]
 *
 * Skipped (no rows) when nats-server is not installed.
 *
 * @module
 */

import type { Host } from "../core/host.ts";
import { WorldServer } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";
import { makeWorld } from "../tests/helpers/world.ts";
import { natsServerPath, TestNats, worldUsers } from "../tests/helpers/nats.ts";
import type { BenchRow } from "./bench_row.ts";

/** One row of the bench (`bench_row.ts`). */
export type RemoteRow = BenchRow;

const LAUNCHER = new URL("../sausage", import.meta.url).pathname;

/** This process's CPU time (ms, user + system), from `/proc/self/stat`. */
function cpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
}

async function round(
  host: Host,
  method: string,
  callers: number,
  total: number,
  params: Record<string, unknown> = {},
) {
  const times: number[] = [];
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: callers }, async (_, i) => {
    const c = WorldClient.of(host, `bench-${i}`);
    for (let k = 0; k < Math.ceil(total / callers); k++) {
      const t = performance.now();
      const r = await c.send(method, params);
      times.push(performance.now() - t);
      if ("error" in r && r.error) throw new Error(JSON.stringify(r.error));
    }
  }));
  return { times, wallMs: performance.now() - t0, cpuMs: cpuMs() - cpu0 };
}

function row(what: string, times: number[], wallMs: number, cpu: number): RemoteRow {
  const s = [...times].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))];
  return {
    what,
    p50: at(0.5),
    p99: at(0.99),
    perSecond: times.length / (wallMs / 1000),
    runs: times.length,
    note: `host CPU ${(cpu * 1000 / times.length).toFixed(0)} µs per ${
      what.includes("remote") ? "remote call" : "call"
    }`,
  };
}

/** Measures the rows; none when nats-server is missing. */
export async function remoteRows(calls = 2000, rounds = 3): Promise<RemoteRow[]> {
  if (!natsServerPath()) return [];
  const users = worldUsers("bench", ["w1"]);
  const nats = await TestNats.start({ bench: users });
  const probe = await builtTestPlugin("probe");
  const root = await makeWorld({
    plugins: { local: probe, remote: probe },
    files: {
      "config/nats.json": JSON.stringify({
        url: nats.url,
        user: users.host.user,
        password: users.host.password,
        world: "bench",
      }),
      "config/placement.json": JSON.stringify({ plugins: { remote: "remote" } }),
      "hello.txt": "from the host",
    },
  });
  const { host } = await WorldServer.open(root, { socket: false, sandboxes: 1, watch: false });
  const worker = new Deno.Command(LAUNCHER, {
    args: [
      ...["worker", "--nats", nats.url, "--world", "bench"],
      ...["--id", "w1", "--user", users.workers.w1.user],
    ],
    env: { SAUSAGE_NATS_PASSWORD: users.workers.w1.password },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const rows: RemoteRow[] = [];
  try {
    await host.start();
    while (!host.remote!.workers.list().length) await new Promise((r) => setTimeout(r, 50));
    for (const m of ["local.noop", "remote.noop"]) await round(host, m, 10, 2000); // warm-up
    const per = Math.ceil(calls / rounds);
    const acc: Record<string, { times: number[]; wallMs: number; cpuMs: number }> = {};
    const add = (key: string, got: { times: number[]; wallMs: number; cpuMs: number }) => {
      acc[key] ??= { times: [], wallMs: 0, cpuMs: 0 };
      acc[key].times.push(...got.times);
      acc[key].wallMs += got.wallMs;
      acc[key].cpuMs += got.cpuMs;
    };
    const read = { method: "read_file", params: { path: "/hello.txt" } };
    for (const m of ["local", "remote"]) await round(host, `${m}.read_file`, 1, 200, read.params);
    for (let r = 0; r < rounds; r++) {
      for (const callers of [1, 10]) {
        for (const where of ["local", "remote"]) {
          const key = `no-op on a ${
            where === "local" ? "local sandbox" : "remote worker (NATS)"
          }, ${callers} caller(s)`;
          add(key, await round(host, `${where}.noop`, callers, per));
        }
      }
      for (const where of ["local", "remote"]) {
        const key = `a 13-byte world file read by a ${
          where === "local" ? "local process" : "remote process (NATS)"
        }, 1 caller`;
        add(key, await round(host, `${where}.read_file`, 1, Math.ceil(per / 4), read.params));
      }
    }
    for (const [what, { times, wallMs, cpuMs }] of Object.entries(acc)) {
      rows.push(row(what, times, wallMs, cpuMs));
    }
    // Each remote row beside its local one: the host's CPU per call, and for the read the file
    // operation's own (the read's CPU less the no-op's), remote against local.
    const cpu = (what: string) => acc[what].cpuMs / acc[what].times.length;
    const noop = (where: string) => `no-op on a ${where}, 1 caller(s)`;
    const reading = (where: string) => `a 13-byte world file read by a ${where}, 1 caller`;
    const [ln, rn] = [noop("local sandbox"), noop("remote worker (NATS)")];
    const [lr, rr] = [reading("local process"), reading("remote process (NATS)")];
    const kept = host.remote!.workers.list()[0]?.kept ?? 0;
    for (const r of rows) {
      if (r.what === rn) r.note += `; ${(cpu(rn) / cpu(ln)).toFixed(2)}x local`;
      if (r.what === rr) {
        r.note += `; ${(cpu(rr) / cpu(lr)).toFixed(2)}x local; the read alone ${
          (cpu(rr) - cpu(rn)).toFixed(3)
        } ms against ${(cpu(lr) - cpu(ln)).toFixed(3)} ms local; the worker keeps ${kept} file(s)`;
      }
    }
  } finally {
    worker.kill("SIGTERM");
    await worker.status;
    await host.shutdown(100);
    await nats.stop();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const calls = Number(Deno.args[Deno.args.indexOf("--calls") + 1]) || 2000;
  if (!natsServerPath()) console.log("nats-server is not installed: no rows");
  for (const r of await remoteRows(calls)) {
    console.log(
      `${r.what}: ${r.runs} calls, p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, ` +
        `${r.perSecond.toFixed(0)} calls/s, ${r.note}`,
    );
  }
  console.log(`load ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}
