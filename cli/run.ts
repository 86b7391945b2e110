/**
 * `sausage run <world> [--headless]`: runs a world until SIGINT, SIGTERM or
 * `core.exit` (exit code 75). Until the console exists, it always runs
 * headless.
 *
 * @module
 */

import { ControlServer } from "../core/control_server.ts";
import { Host } from "../core/host.ts";
import { World } from "../core/world.ts";
import { parseArgs, UsageError } from "./args.ts";
import { HostClient } from "./client.ts";
import { buildMissing } from "../core/build/world_build.ts";

/** Usage of `run`. */
export const RUN_USAGE = "sausage run <world> [--headless]";

/** Runs the subcommand; resolves with the exit code. */
export async function run(args: string[]): Promise<number> {
  const { positional } = parseArgs(args, ["--headless"], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${RUN_USAGE}`);
  const world = new World(positional[0]);
  const running = await HostClient.connect(world);
  if (running) {
    running.close();
    throw new Error(`a host already runs ${world.root} (see state/core/host.json); stop it first`);
  }
  await buildMissing(world, (line) => console.error(line));
  const host = new Host(world.root, { report: (line) => console.error(line) });
  const control = await ControlServer.start(host);
  const stop = () => host.exit(0);
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await host.start();
  console.error(
    `sausage: running ${world.root} (${world.pluginNames().length} plugins); Ctrl-C stops it`,
  );
  const code = await host.done;
  console.error(code === 75 ? "sausage: core.exit: stopping" : "sausage: stopping");
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  // Processes get their grace period to answer (a guest that called
  // core.exit answers its caller) before the connections close.
  await host.shutdown();
  await control.close();
  return code;
}
