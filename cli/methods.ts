/**
 * `sausage methods <world> <plugin> [--json]`: a plugin's methods, with
 * their params, results and docs, as the console's `methods` prints them
 * (`cli/console/methods_text.ts`); `--json` prints its `rpc.discover`
 * document. Through the running host, or a transient one.
 *
 * @module
 */

import type { OpenRpcDocument } from "../rpc/openrpc.ts";
import { pluginNameProblem } from "../core/mod.ts";
import { parseArgs, UsageError } from "./args.ts";
import { methodsText } from "./console/methods_text.ts";
import { errorText } from "./error_text.ts";
import { withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";

/** Usage of `methods`. */
export const METHODS_USAGE = "sausage methods <world> <plugin> [--json]";

/** Runs the subcommand; resolves with the exit code. */
export async function methods(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length !== 2) throw new UsageError(`usage: ${METHODS_USAGE}`);
  const world = openWorld(positional[0]);
  const plugin = positional[1];
  const problem = pluginNameProblem(plugin);
  if (problem) throw new UsageError(problem);
  const r = await withWorld(
    world,
    "methods",
    () => {},
    (send) => send(`${plugin}.rpc.discover`, {}),
  );
  if (r.error) {
    console.error(flags.has("--json") ? JSON.stringify(r.error) : errorText(r.error));
    return 1;
  }
  if (flags.has("--json")) console.log(JSON.stringify(r.result, null, 2));
  else console.log(methodsText(plugin, r.result as OpenRpcDocument).join("\n"));
  return 0;
}
