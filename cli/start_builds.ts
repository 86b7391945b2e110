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

import { changedPlugins, type Host, LocalCaller, type World } from "../core/mod.ts";
import { buildAndActivate, printOutcome, printProgress } from "./build.ts";
import type { Send } from "./world_session.ts";

/** A way to call `host` from inside this process (cargo's lines go to stderr); `end` drops late answers. */
export function localSend(host: Host, name: string): { send: Send; end: () => void } {
  const caller = new LocalCaller(name, (msg) => {
    if ("method" in msg) printProgress(msg);
  });
  return {
    send: async (method, params) => await caller.call(host.router, method, params),
    end: () => (caller.hasEnded = true),
  };
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
