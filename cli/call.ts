/**
 * `sausage call <world> <method> [params-json] [--json] [--timeout-ms <ms>]`: one call. Prints the
 * result as JSON on stdout (exit 0), or the error on stderr (exit 1): as text
 * on a terminal (a compiler's output, a refusal), else (or with `--json`) as
 * the error object. Uses the
 * running host of the world, or a transient host for this one call
 * (`reach_host.ts`: under the world's lock, serving the others meanwhile). A
 * transient host never builds: a plugin without `plugin.wasm` answers -32001
 * with how to build it (building runs the plugin's build scripts, which is
 * `sausage run`'s or `cargo.build`'s job, in the build sandbox).
 * Notifications of the call go to stderr. `--timeout-ms` sets the call's time
 * limit (PROTOCOL 4.9): the call goes as `core.call` with `timeout_ms`.
 *
 * @module
 */

import { openWorld } from "./world_arg.ts";
import { isObject, type Message, type Response } from "../rpc/message.ts";
import { parseArgs, UsageError } from "./args.ts";
import { reachHost, release } from "./reach_host.ts";
import { formatJson } from "./output.ts";
import { parseExact } from "../rpc/exact_json.ts";
import { errorText, noteText } from "./error_text.ts";
import { closest } from "./console/closest.ts";

/** Usage of `call`. */
export const CALL_USAGE =
  "sausage call <world> <method> [params-json] [--json] [--timeout-ms <ms>]";

/** Parses the params argument: a JSON object, `{}` when missing. */
export function parseParams(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let v: unknown;
  try {
    v = parseExact(text); // integers beyond 2^53 kept exactly
  } catch (e) {
    throw new UsageError(`params are not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(v)) throw new UsageError(`params must be a JSON object, like '{"text": "milk"}'`);
  return v;
}

function notified(msg: Message): void {
  if (!("method" in msg)) return;
  // For people, the notification's text (cargo's line, an agent's text); for scripts, its JSON.
  console.error(
    Deno.stderr.isTerminal() ? noteText(msg.params) : `notify ${JSON.stringify(msg.params)}`,
  );
}

/** Runs the subcommand; resolves with the exit code. */
export async function call(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], ["--timeout-ms"]);
  if (positional.length < 2 || positional.length > 3) throw new UsageError(`usage: ${CALL_USAGE}`);
  const [path, target, paramsText] = positional;
  let method = target;
  let params = parseParams(paramsText);
  const timeout = flags.get("--timeout-ms");
  if (typeof timeout === "string") {
    const ms = Number(timeout);
    if (!Number.isSafeInteger(ms) || ms < 1) {
      throw new UsageError(`--timeout-ms must be a whole number of milliseconds, not ${timeout}`);
    }
    [method, params] = ["core.call", { method: target, params, timeout_ms: ms }];
  }
  const world = openWorld(path);
  let response: Response;
  const reached = await reachHost(world, {
    command: "sausage call",
    host: { sandboxes: 1 },
    report: (line) => console.error(line),
  });
  if (reached.client) {
    reached.client.onNotify = notified;
    response = await reached.client.send(method, params);
  } else {
    // Loaded only here: a call to a running host does not load the host's modules.
    const { LocalCaller } = await import("../core/local_caller.ts");
    const caller = new LocalCaller("console", notified);
    response = await caller.call(reached.host.router, method, params) as Response;
    caller.hasEnded = true;
  }
  await release(reached);
  if (response.error) {
    const plugin = target.split(".")[0];
    if (response.error.code === -32001 && response.error.message.startsWith("no such plugin:")) {
      // A misspelt plugin: the closest of the world's plugins.
      const near = closest(plugin, world.pluginNames().filter((n) => n !== plugin));
      if (near) {
        response.error.message += `; did you mean ${near}.${target.split(".").slice(1).join(".")}?`;
      }
    }
    // On a terminal the error as text (a compiler's output, a refusal); else its JSON object.
    const people = !flags.has("--json") && Deno.stderr.isTerminal();
    console.error(people ? errorText(response.error) : formatJson(response.error));
    return 1;
  }
  console.log(formatJson(response.result));
  return 0;
}
