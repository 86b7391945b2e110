/**
 * A polite caller beside flooding callers (issue 36, item 6): its no-ops one
 * at a time while each of the flooders keeps {@link FLOOD_DEPTH} no-ops asked
 * and unanswered. Calls go round robin over callers past
 * `world_calls_starting`, so the polite caller waits for about one call of
 * each flooder. A row of `deno task bench`; alone, an A/B in one run:
 *
 *   deno run -A bench/flood_calls.ts [flooders=100] [calls=500]
 *
 * measures the default limits and `world_calls_starting` 1,000,000 (first
 * come first served, as before) on the same machine, one after the other.
 *
 * @module
 */

import type { Host } from "../core/host.ts";
import { WorldClient } from "../core/control/world_client.ts";

/** The calls each flooding caller keeps asked and unanswered. */
export const FLOOD_DEPTH = 8;

/** The polite caller's times, the wall time they took, and what the flood did meanwhile. */
export interface FloodRun {
  times: number[];
  wallMs: number;
  note: string;
}

/** `total` no-ops of a polite caller beside `flooders` flooding callers of `host` (which has `probe`). */
export async function besideFlood(host: Host, flooders: number, total: number): Promise<FloodRun> {
  let stop = false;
  let served = 0;
  const floods = Array.from({ length: flooders }, (_, i) => WorldClient.of(host, `flood${i}`))
    .flatMap((c) =>
      Array.from({ length: FLOOD_DEPTH }, async () => {
        while (!stop) (await c.send("probe.noop", {}), served++);
      })
    );
  // Every flooder has had calls answered: the queues are full.
  while (served < flooders * FLOOD_DEPTH) await new Promise((r) => setTimeout(r, 5));
  const polite = WorldClient.of(host, "polite");
  const times: number[] = [];
  const servedAt0 = served;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const t = performance.now();
    const r = await polite.send("probe.noop", {});
    times.push(performance.now() - t);
    if (r.error) throw new Error(`probe.noop: ${JSON.stringify(r.error)}`);
  }
  const wallMs = performance.now() - t0;
  const rate = ((served - servedAt0) / (wallMs / 1000)).toFixed(0);
  stop = true;
  await Promise.all(floods);
  return {
    times,
    wallMs,
    note: `${flooders} callers keeping ${FLOOD_DEPTH} no-ops asked: ${rate} of theirs/s meanwhile`,
  };
}

if (import.meta.main) {
  const { WorldServer } = await import("../core/control/world_server.ts");
  const { builtTestPlugin } = await import("../tests/helpers/plugins.ts");
  const { makeWorld } = await import("../tests/helpers/world.ts");
  const flooders = Number(Deno.args[0] ?? 100);
  const total = Number(Deno.args[1] ?? 500);
  const probe = await builtTestPlugin("probe");
  for (
    const [label, limits] of [["round robin (default)", {}], ["first come first served", {
      world_calls_starting: 1_000_000,
    }]] as const
  ) {
    const world = await makeWorld({
      plugins: { probe },
      files: { "config/limits.json": JSON.stringify(limits) },
    });
    const { host } = await WorldServer.open(world, { socket: false, watch: false });
    await host.start();
    await besideFlood(host, 10, 200); // warm-up
    const { times, note } = await besideFlood(host, flooders, total);
    const s = times.sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))].toFixed(1);
    console.log(`${label}: polite no-op p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${note})`);
    await host.shutdown(200);
    await Deno.remove(world, { recursive: true });
  }
}
