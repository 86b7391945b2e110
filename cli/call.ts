/**
 * `sausage call <world> <method> [params-json] [--json] [--timeout-ms <ms>]`: one call. Prints the
 * result as JSON on stdout (exit 0), or the error on stderr (exit 1): as text
 * on a terminal (a compiler's output, a refusal), else (or with `--json`) as
 * the error object. Uses the
 * running host of the world, or a transient host for this one call
 * (`core/control/world_client.ts`: under the world's lock, serving the others meanwhile). A
 * transient host never builds: a plugin without `plugin.wasm` answers -32001
 * with how to build it (building runs the plugin's build scripts, which is
 * `sausage run`'s or `cargo.build`'s job, in the build sandbox).
 * Notifications of the call go to stderr. `--timeout-ms` sets the call's time
 * limit (PROTOCOL 4.9): the call goes as `core.call` with `timeout_ms`; `--key`
 * gives it a request key (4.10: a retry with it never runs it twice). On a
 * terminal a call that takes over a second shows a spinner line with the
 * time elapsed on stderr (`call_progress.ts`). Ctrl-C cancels the call and
 * says so (exit code 130): `core.cancel` through a running host, else the
 * transient host kills the call's processes; `sausage ps` from another
 * terminal sees a transient host's processes (it serves the control socket).
 *
 * @module
 */

import { openWorld } from "./world_arg.ts";
import { isObject, type Message, type Response } from "../rpc/message.ts";
import { parseArgs, UsageError } from "./args.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { formatJson } from "./output.ts";
import { parseExact } from "../rpc/exact_json.ts";
import { errorText, noteText } from "./error_text.ts";
import { closest } from "./console/closest.ts";
import { ProgressLine } from "./call_progress.ts";
import { ErrorCode } from "../rpc/errors.ts";

/** Usage of `call`. */
export const CALL_USAGE =
  "sausage call <world> <method> [params-json] [--json] [--timeout-ms <ms>] [--key <key>]";

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

/** A notification as a line: for people its text (cargo's line, an agent's text), for scripts its JSON. */
function noteLine(msg: Message): string | undefined {
  if (!("method" in msg)) return undefined;
  return Deno.stderr.isTerminal() ? noteText(msg.params) : `notify ${JSON.stringify(msg.params)}`;
}

/** The exit code after Ctrl-C (128 + SIGINT), as shells report it. */
export const CANCELLED_EXIT = 130;

/** Runs the subcommand; resolves with the exit code. */
export async function call(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], ["--timeout-ms", "--key"]);
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
  // A request key: a retry with it never runs the call twice (PROTOCOL 4.10).
  const key = flags.get("--key");
  if (typeof key === "string") {
    params = method === "core.call" ? { ...params, key } : { method: target, params, key };
    method = "core.call";
  }
  const world = openWorld(path);
  const progress = new ProgressLine(target);
  const notified = (msg: Message) => {
    const line = noteLine(msg);
    if (line !== undefined) progress.line(line);
  };
  // Ctrl-C cancels the call (core.cancel: its processes are stopped); a second one leaves at once.
  let cancel: (() => void) | undefined;
  let interrupted = false;
  const stopped: string[] = [];
  const onInterrupt = () => {
    if (interrupted) Deno.exit(CANCELLED_EXIT);
    interrupted = true;
    progress.line(`sausage: Ctrl-C: cancelling ${target} (Ctrl-C again leaves at once)`);
    cancel?.();
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  let response: Response;
  const client = await WorldClient.reach(world, {
    command: "sausage call",
    host: { sandboxes: 1 },
    report: (line) => progress.line(line),
  });
  try {
    client.onNotify = notified;
    const answer = client.send(method, params);
    const id = client.lastId;
    // A running host stops the call's processes (core.cancel); a transient one, which ends
    // with the call, kills them at once, as the console's Ctrl-C, or, when its process is not
    // there yet (a loaded machine: still being started), cancels the call as a running host
    // would, so that it never starts.
    cancel = client.running ? () => client.notify("core.cancel", { id }) : () => {
      stopped.push(...client.kill());
      if (!stopped.length) client.notify("core.cancel", { id });
    };
    if (interrupted) cancel();
    response = await answer;
  } finally {
    progress.stop();
    // After Ctrl-C a transient host does not wait for the cancelled call's grace period.
    await client.close(interrupted ? 0 : undefined);
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
  if (interrupted && response.error) {
    const pid = (response.error.data as { pid?: string } | undefined)?.pid;
    const how = response.error.code === ErrorCode.Cancelled
      ? pid ? `; its process ${pid} is being stopped (core.cancel)` : "; it had not started"
      : stopped.length
      ? `; its process ${stopped.join(", ")} was stopped`
      : "";
    console.error(`sausage: ${target} cancelled after ${progress.seconds} s${how}`);
    return CANCELLED_EXIT;
  }
  if (response.error) {
    const plugin = target.split(".")[0];
    if (response.error.code === -32001 && response.error.message.startsWith("no such plugin:")) {
      // A misspelt plugin: the closest of the world's plugins (a plugin for a plugin).
      const near = closest(plugin, world.pluginNames().filter((n) => n !== plugin), 2);
      if (near) response.error.message += `; did you mean the plugin ${near}?`;
    }
    // On a terminal the error as text (a compiler's output, a refusal); else its JSON object.
    const people = !flags.has("--json") && Deno.stderr.isTerminal();
    console.error(people ? errorText(response.error) : formatJson(response.error));
    return 1;
  }
  console.log(formatJson(response.result));
  return 0;
}
