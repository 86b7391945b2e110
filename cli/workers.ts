/**
 * `sausage workers <world> [--json]`: the workers of the world's running
 * host (`sausage worker`), with their load.
 *
 * @module
 */

import type { WorkerInfo } from "../core/remote/worker_set.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { table } from "./output.ts";

/** Usage of `workers`. */
export const WORKERS_USAGE = "sausage workers <world> [--json] | " +
  "sausage workers add <world-name> <id> [--seed-file <file>]";

/** Runs the subcommand; resolves with the exit code. */
export async function workers(args: string[]): Promise<number> {
  if (args[0] === "add") return (await import("./workers_add.ts")).workersAdd(args.slice(1));
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${WORKERS_USAGE}`);
  const world = openWorld(positional[0]);
  const client = await WorldClient.connect(world);
  if (!client) {
    console.error(`sausage: no host runs ${world.root}, so it has no workers`);
    return 1;
  }
  const list = await client.request("$/workers", {}) as WorkerInfo[] | null;
  client.close();
  if (list === null) {
    console.error(`sausage: ${world.root} has no config/nats.json, so it has no workers`);
    return 1;
  }
  if (flags.has("--json")) {
    console.log(JSON.stringify(list));
    return 0;
  }
  console.log(table(
    ["WORKER", "MACHINE", "LOAD", "SANDBOXES", "PLACED", "KEPT FILES", "JOINED", "SEEN"],
    list.map((w) => [
      w.worker,
      w.machine,
      String(w.load),
      String(w.slots),
      String(w.placed),
      String(w.kept),
      w.joined,
      `${(w.seen_ms / 1000).toFixed(1)} s ago`,
    ]),
  ));
  return 0;
}
