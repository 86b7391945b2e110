/**
 * The rows of issue 38's targets for one checkout, so that two checkouts can
 * be run alternately (A/B) by a shell loop: a warm-up of 2,000 processes per
 * sandbox (as `deno task bench`), then a no-op from 1 caller and from 10, a
 * nested call and a fan-out of 10; each row with its p50, calls per second
 * and the host process's CPU per call by thread (the event loop, the
 * journal's worker, the rest: V8's helpers), from `/proc/self/task`.
 *
 *   deno run --allow-all bench/core_ab.ts [checkout=this one] [--calls 2000] [--only noop|nested|fanout]
 *
 * The checkout's own code runs (imported from its folder); this file is
 * only the harness. One line per row, tab-separated, for a script to gather.
 *
 * @module
 */

const here = new URL("..", import.meta.url).pathname;
const tree = (Deno.args[0] && !Deno.args[0].startsWith("--") ? Deno.args[0] : here)
  .replace(/\/?$/, "/");
const N = Number(Deno.args[Deno.args.indexOf("--calls") + 1]) || 2000;
const only = Deno.args.includes("--only") ? Deno.args[Deno.args.indexOf("--only") + 1] : null;
const rows = (name: string) => only === null || only === name;
const { WorldServer } = await import(`${tree}core/control/world_server.ts`);
const { WorldClient } = await import(`${tree}core/control/world_client.ts`);
const { builtTestPlugin } = await import(`${tree}tests/helpers/plugins.ts`);
const { makeWorld } = await import(`${tree}tests/helpers/world.ts`);
const { cpuNow, threadsCpuMs } = await import(`${here}bench/cpu_time.ts`);

/** CPU ms so far of this process's threads, by kind (`cpu_time.ts`). */
const threads = threadsCpuMs;

const probe = await builtTestPlugin("probe");
const root = await makeWorld({ plugins: { probe } });
const { host } = await WorldServer.open(root, { socket: false, watch: false });
await host.start();
await Promise.all(host.pool.sandboxes.map((s: { ready: Promise<unknown> }) => s.ready));

async function calls(
  what: string,
  method: string,
  params: unknown,
  callers: number,
  total: number,
  print = true,
): Promise<void> {
  const times: number[] = [];
  let left = total;
  const t0 = threads(), c0 = cpuNow(), w0 = performance.now();
  await Promise.all(Array.from({ length: callers }, async (_, i) => {
    const c = WorldClient.of(host, `ab${i}`);
    while (left-- > 0) {
      const t = performance.now();
      const r = await c.send(method, params);
      times.push(performance.now() - t);
      if ("error" in r && r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    }
  }));
  const wall = performance.now() - w0, t1 = threads(), c1 = cpuNow();
  if (!print) return;
  times.sort((a, b) => a - b);
  const us = (ms: number) => (ms * 1000 / total).toFixed(0);
  console.log([
    what,
    `p50 ${times[Math.floor(total / 2)].toFixed(3)} ms`,
    `${(total / wall * 1000).toFixed(0)}/s`,
    `core ${us(c1.host - c0.host)} µs (loop ${us(t1.loop - t0.loop)}, worker ${
      us(t1.worker - t0.worker)
    }, other ${us(t1.other - t0.other)})`,
    `sandboxes ${us(c1.sandboxes - c0.sandboxes)} µs`,
  ].join("\t"));
}

const sandboxes = host.pool.sandboxes.length;
const nested = { method: "probe.noop", params: {} };
const ten = { calls: Array.from({ length: 10 }, () => nested) };
if (rows("noop")) {
  await calls("warm-up", "probe.noop", {}, 10, 2000 * sandboxes, false);
  await calls("no-op, 1 caller", "probe.noop", {}, 1, N);
  await calls("no-op, 10 callers", "probe.noop", {}, 10, N);
}
if (rows("nested")) {
  await calls("warm-up", "probe.call", nested, 10, 1000 * sandboxes, false);
  await calls("nested", "probe.call", nested, 1, N / 2);
}
if (rows("fanout")) {
  await calls("warm-up", "probe.fanout", ten, 10, Math.ceil(2000 * sandboxes / 11), false);
  await calls("fan-out of 10", "probe.fanout", ten, 1, N / 10);
}
await host.shutdown(200);
await Deno.remove(root, { recursive: true });
