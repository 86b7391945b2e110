/**
 * `sausage ps <world> [--json]`: the running processes of the world's host,
 * as the console's `ps` shows them (start times of day, "no process runs"),
 * after a line on stderr saying which host serves the world (a transient one
 * is a `sausage call`'s, `build`'s, …, and ends with its command).
 *
 * @module
 */

import type { ProcessInfo } from "../core/processes/process.ts";
import { describeHolder, HostLock } from "../core/control/host_lock.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { processTable } from "./console/inspect.ts";

/** Usage of `ps`. */
export const PS_USAGE = "sausage ps <world> [--json]";

/** Runs the subcommand; resolves with the exit code. */
export async function ps(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${PS_USAGE}`);
  const world = openWorld(positional[0]);
  const client = await WorldClient.connect(world);
  let list: ProcessInfo[] = [];
  if (client) {
    list = await client.request("$/ps", {}) as ProcessInfo[];
    client.close();
  }
  if (flags.has("--json")) {
    console.log(JSON.stringify(list));
    return 0;
  }
  if (!client) {
    console.error(`sausage: no host runs ${world.root}, so no process runs`);
    return 0;
  }
  console.error(`sausage: the host of ${world.root}: ${describeHolder(HostLock.holder(world))}`);
  console.log(processTable(list) ?? "no process runs");
  return 0;
}
