/**
 * What `run` and `dev` do with a plugin whose source changed since its
 * `plugin.wasm` was built (by content: `core/cargo/source_stamp.ts`): what
 * `sausage build` does, before the boot calls. Its tests run, it is built,
 * and it is activated only when the checks pass, together with the other
 * changed plugins; a version refused is kept out, with the reason on the
 * terminal and in the journal (`activation-refused`, PROTOCOL 10.4), and
 * the version before keeps running.
 *
 * @module
 */

import { changedPlugins } from "../core/cargo/world_build.ts";
import type { Host } from "../core/host.ts";
import type { World } from "../core/world/world.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { buildAndActivate, printOutcome, printProgress } from "./build.ts";
import type { Send } from "./world_session.ts";

/**
 * A client of `host` in this process named `name` whose calls' notifications
 * (cargo's lines) go to stderr; `send` calls through it, `end` closes it.
 */
export function localSend(host: Host, name: string): { send: Send; end: () => Promise<void> } {
  const client = WorldClient.of(host, name);
  client.onNotify = printProgress;
  return { send: (method, params) => client.send(method, params), end: () => client.close() };
}

/**
 * Tests, builds and activates together the plugins of `world` whose source
 * changed (as `sausage build <world> <them>`), printing the outcome for
 * people on stderr. `worldArg` is the world as the user wrote it (for the
 * commands a refusal suggests). Resolves with the plugins it tried.
 */
export async function buildChanged(world: World, send: Send, worldArg: string): Promise<string[]> {
  const changed = await changedPlugins(world);
  if (!changed.length) return changed;
  const list = changed.length === 1
    ? `${changed[0]}'s source changed since its plugin.wasm was built`
    : `the sources of ${changed.join(", ")} changed since they were built`;
  console.error(`sausage: ${list}: testing, building, checking (as sausage build)`);
  const outcome = await buildAndActivate(send, changed, {
    partners: () => changedPlugins(world),
    report: (line) => console.error(line),
  });
  printOutcome(outcome.plugins, outcome, true, worldArg);
  return changed;
}
