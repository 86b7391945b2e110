/**
 * `sausage import <world> <consumer> <provider>`: copies the provider's
 * current `rpc.discover` document into the consumer's
 * `source/imports/<provider>.json`, where `sausage_plugin::import!("<provider>")`
 * reads it to make a typed client. Methods the consumer does not use may stay:
 * `cargo.build` warns about them, and the checks at activation compare only
 * what the consumer calls once they are removed (PROTOCOL.md).
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { checkPluginSource } from "./build.ts";
import { errorText } from "./error_text.ts";
import { withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";
import { pluginNameProblem } from "../core/world.ts";

/** Usage of `import`. */
export const IMPORT_USAGE = "sausage import <world> <consumer> <provider>";

/** Runs the subcommand; resolves with the exit code. */
export async function importCommand(args: string[]): Promise<number> {
  const { positional } = parseArgs(args, [], []);
  if (positional.length !== 3) throw new UsageError(`usage: ${IMPORT_USAGE}`);
  const [path, consumer, provider] = positional;
  const world = openWorld(path);
  checkPluginSource(world, consumer);
  const problem = pluginNameProblem(provider);
  if (problem) throw new UsageError(problem);
  const response = await withWorld(world, () => {}, (send) => send(`${provider}.rpc.discover`, {}));
  if (response.error) {
    console.error(errorText(response.error));
    throw new Error(`${provider}'s document could not be read: build it first (sausage build)`);
  }
  const dir = `${world.pluginDir(consumer)}/source/imports`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/${provider}.json`,
    JSON.stringify(response.result, null, 2) + "\n",
  );
  const methods = ((response.result as { methods?: { name: string }[] }).methods ?? [])
    .map((m) => m.name);
  console.log(
    `wrote plugins/${consumer}/source/imports/${provider}.json (${methods.join(", ")}). ` +
      `In ${consumer}'s src/main.rs:\n  sausage_plugin::import!("${provider}");\n` +
      `then call it as ${provider}::<method>(…).await (see the client: sausage cat ${path} ` +
      `/proc/core/plugins/${provider}/client.rs)`,
  );
  return 0;
}
