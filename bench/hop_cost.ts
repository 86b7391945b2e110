/**
 * What one hop costs the core: round trips of a small message to an echoing
 * Deno subprocess through `sandbox/hop/link.ts`'s `StreamLink`, over the
 * subprocess's stdin and stdout (web streams on the core's side, as
 * `core/sandboxes/sandbox_hop.ts` uses them), over a Unix socket (raw reads and
 * writes on both sides), and split (the core writes the socket, reads
 * the pipe). CPU of each side from `/proc`, wall p50; variants alternate.
 *
 *   deno run --allow-all bench/hop_cost.ts [--trips N] [--rounds N] [--inflight N]
 *
 * @module
 */

import {
  type ByteDuplex,
  laterDuplex,
  rawDuplex,
  streamDuplex,
  StreamLink,
} from "../sandbox/hop/link.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};

type Msg = { op: "out"; pid: string; line: string };
const check = (m: unknown) => m as Msg;

/** The echo side (this file run with `--echo <pipe|unix:path|split:path>`). */
async function echo(mode: string): Promise<void> {
  let io: ByteDuplex;
  if (mode === "pipe") io = rawDuplex(Deno.stdin, Deno.stdout);
  else {
    const conn = await Deno.connect({ transport: "unix", path: mode.slice(mode.indexOf(":") + 1) });
    io = mode.startsWith("split:") ? rawDuplex(conn, Deno.stdout) : rawDuplex(conn);
  }
  const link = new StreamLink<Msg, Msg>(io, { check, maxFrame: 1 << 20 });
  link.listen((m) => link.send(m));
  await link.closed;
  Deno.exit(0);
}

function cpuMs(pid: number | "self"): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function measure(mode: "pipe" | "unix" | "split", trips: number, inflight: number) {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/s`;
  const listener = mode === "pipe" ? null : Deno.listen({ transport: "unix", path });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--echo",
      mode === "pipe" ? "pipe" : `${mode}:${path}`,
    ],
    stdin: mode === "pipe" ? "piped" : "null",
    stdout: mode === "unix" ? "null" : "piped",
  }).spawn();
  let io: ByteDuplex;
  if (mode === "pipe") io = streamDuplex(child.stdout, child.stdin);
  else {
    const conn = listener!.accept();
    const sock = laterDuplex(conn.then((c) => rawDuplex(c)));
    io = mode === "unix" ? sock : {
      read: streamDuplex(child.stdout, new WritableStream()).read,
      write: (b) => sock.write(b),
      close: () => sock.close(),
    };
  }
  const link = new StreamLink<Msg, Msg>(io, { check, maxFrame: 1 << 20 });
  const line = JSON.stringify({ jsonrpc: "2.0", id: "probe-01a23670-8dd6-7000", result: {} });
  let waiting: (() => void) | null = null;
  link.listen(() => waiting?.());
  const once = () =>
    new Promise<void>((r) => {
      waiting = r;
      link.send({ op: "out", pid: "p", line });
    });
  for (let i = 0; i < 500; i++) await once(); // warm-up
  const times: number[] = [];
  const c0 = cpuMs("self"), k0 = cpuMs(child.pid), t0 = performance.now();
  if (inflight === 1) {
    for (let i = 0; i < trips; i++) {
      const t = performance.now();
      await once();
      times.push(performance.now() - t);
    }
  } else {
    // `inflight` messages out at once, each answer sends the next.
    let left = trips;
    await new Promise<void>((done) => {
      let out = 0;
      link.listen(() => {
        out--;
        if (left > 0) (left--, out++, link.send({ op: "out", pid: "p", line }));
        else if (out === 0) done();
      });
      for (let i = 0; i < inflight; i++) (left--, out++, link.send({ op: "out", pid: "p", line }));
    });
  }
  const wall = performance.now() - t0;
  const core = (cpuMs("self") - c0) * 1000 / trips, peer = (cpuMs(child.pid) - k0) * 1000 / trips;
  link.close();
  child.kill();
  await child.status;
  listener?.close();
  Deno.removeSync(dir, { recursive: true });
  times.sort((a, b) => a - b);
  return {
    p50: times[Math.floor(times.length / 2)] ?? NaN,
    perSec: trips / wall * 1000,
    core,
    peer,
  };
}

if (Deno.args[0] === "--echo") await echo(Deno.args[1]);
else {
  const trips = arg("trips", 5000), rounds = arg("rounds", 3), inflight = arg("inflight", 1);
  for (let r = 0; r < rounds; r++) {
    for (const mode of ["pipe", "unix", "split"] as const) {
      const m = await measure(mode, trips, inflight);
      console.log(
        `${mode} (${inflight} in flight): p50 ${m.p50.toFixed(3)} ms, ${m.perSec.toFixed(0)}/s, ` +
          `CPU µs per trip: core ${m.core.toFixed(1)}, peer ${m.peer.toFixed(1)}  ` +
          `(load ${Deno.loadavg()[0].toFixed(1)})`,
      );
    }
  }
}
