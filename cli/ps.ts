/**
 * `sausage ps <world> [--json]`: the running processes of the world's host.
 *
 * @module
 */

import type { ProcessInfo } from "../core/process.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";
import { HostClient } from "./client.ts";
import { table } from "./output.ts";

/** Usage of `ps`. */
export const PS_USAGE = "sausage ps <world> [--json]";

/** Runs the subcommand; resolves with the exit code. */
export async function ps(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${PS_USAGE}`);
  const world = openWorld(positional[0]);
  const client = await HostClient.connect(world);
  let list: ProcessInfo[] = [];
  if (client) {
    list = await client.request("$/ps", {}) as ProcessInfo[];
    client.close();
  } else if (!flags.has("--json")) {
    console.error(`sausage: no host runs ${world.root}, so no process runs`);
  }
  if (flags.has("--json")) {
    console.log(JSON.stringify(list));
    return 0;
  }
  if (client) {
    // A WORKER column when a process runs on a remote worker (`sausage worker`).
    const remote = list.some((p) => p.worker);
    console.log(table(
      ["PID", "METHOD", "PARENT", "DETACHED", "START", "STATE", ...(remote ? ["WORKER"] : [])],
      list.map((p) => [
        p.pid,
        p.method,
        p.parent,
        p.detached ? "yes" : "no",
        p.start,
        p.state,
        ...(remote ? [p.worker ?? "-"] : []),
      ]),
    ));
  }
  return 0;
}
