/**
 * Benchmark: a no-op call's latency beside 0, 2 and 6 spinning processes
 * of the same sandbox (`probe.count`), p50 and p90 in ms: what a short
 * call waits for its turns (`sandbox/guest/event_turns.ts`, DECISIONS.md "A turn
 * for I/O").
 *
 *   deno run -A bench/beside_spinners.ts [checkout] [--calls 60]
 *
 * `checkout` (default: this one) is the tree whose host runs: give another
 * worktree's path to compare two commits side by side, rounds interleaved.
 */

const root = Deno.args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ??
  new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const callsAt = Deno.args.indexOf("--calls");
const calls = callsAt >= 0 ? Number(Deno.args[callsAt + 1]) : 60;

const { WorldServer } = await import(`${root}/core/control/world_server.ts`);
const { WorldClient } = await import(`${root}/core/control/world_client.ts`);
const { builtTestPlugin } = await import(`${root}/tests/helpers/plugins.ts`);
const { makeWorld } = await import(`${root}/tests/helpers/world.ts`);

const probe = await builtTestPlugin("probe");
const world = await makeWorld({
  plugins: { probe },
  files: { "config/limits.json": JSON.stringify({ call_timeout_ms: 120_000 }) },
});
const { host } = await WorldServer.open(world, { socket: false, watch: false });
await host.start();
const client = WorldClient.of(host, "bench");

/** p50 and p90 of `n` no-op calls one after another, in ms. */
async function noops(n: number): Promise<[number, number]> {
  const took: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await client.send("probe.noop", {});
    took.push(performance.now() - t);
  }
  took.sort((a, b) => a - b);
  return [+took[n >> 1].toFixed(2), +took[Math.floor(n * 0.9)].toFixed(2)];
}

for (let i = 0; i < 50; i++) await client.send("probe.noop", {}); // warm
const out: Record<string, unknown> = {
  checkout: root,
  load: Deno.readTextFileSync("/proc/loadavg").split(" ")[0],
};
for (const spinners of [0, 2, 6]) {
  const spinning = Array.from(
    { length: spinners },
    () => client.send("probe.count", { n: 3_000_000_000 }),
  );
  await new Promise((r) => setTimeout(r, 200));
  out[`beside ${spinners} (p50, p90 ms)`] = await noops(calls);
  for (const p of host.table.all()) {
    if (p.method === "count") await client.send("core.kill", { pid: p.pid });
  }
  await Promise.all(spinning);
}
console.log(JSON.stringify(out));
await host.shutdown(200);
Deno.exit(0);
