/**
 * What `run` and `dev` do, before the boot calls, with a plugin that has a
 * source but no `plugin.wasm`, or whose source changed since its
 * `plugin.wasm` was built (by content: `core/cargo/source_stamp.ts`): what
 * `sausage build` does. Its tests run, it is built, and it is activated
 * only when the checks pass, together with the others. Nothing is installed
 * untested: a plugin whose tests or build fail is left out (the others go
 * on), the version before keeps running, and one with no version before
 * answers its calls with the reason (`recordStartFailure`); one line says
 * so. A version the checks refuse is kept out, with the reason on the
 * terminal and in the journal (`activation-refused`, PROTOCOL 10.4).
 *
 * @module
 */

import {
  clearStartFailure,
  recordStartFailure,
  type StaleSource,
  staleSources,
} from "../core/cargo/world_build.ts";
import type { Host } from "../core/host.ts";
import type { World } from "../core/world/world.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { buildAndActivate, type BuiltFile, printOutcome, printProgress } from "./build.ts";
import { errorText } from "./error_text.ts";
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

/** A plugin the build at start did not install, and the line that said so. */
export interface NotInstalled {
  plugin: string;
  line: string;
}

/** The plugins that may join a round: those whose source changed or that have no build yet. */
async function partnersOf(world: World): Promise<string[]> {
  return (await staleSources(world)).map((s) => s.name);
}

/** The line that says why the start of the world builds `stale`. */
function whyLine(stale: StaleSource[]): string {
  const missing = stale.filter((s) => s.why === "no plugin.wasm").map((s) => s.name);
  const changed = stale.filter((s) => s.why === "its source changed").map((s) => s.name);
  const parts: string[] = [];
  if (changed.length === 1) {
    parts.push(`${changed[0]}'s source changed since its plugin.wasm was built`);
  }
  if (changed.length > 1) {
    parts.push(`the sources of ${changed.join(", ")} changed since they were built`);
  }
  if (missing.length) {
    parts.push(`${missing.join(", ")} ${missing.length === 1 ? "has" : "have"} no plugin.wasm`);
  }
  return `sausage: ${parts.join("; ")}: testing, building, checking (as sausage build)`;
}

/**
 * Tests, builds and activates together `names` (all of `world`'s stale
 * plugins when not given), as `sausage build <world> <them>`, but a plugin
 * whose tests or build fail is left out and the others go on; prints the
 * outcome for people on stderr, one line per plugin left out. `worldArg` is
 * the world as the user wrote it (for the commands a refusal suggests).
 * Resolves with the plugins left out.
 */
export async function buildChanged(
  world: World,
  send: Send,
  worldArg: string,
  names?: string[],
): Promise<NotInstalled[]> {
  const stale = (await staleSources(world)).filter((s) => !names || names.includes(s.name));
  if (!stale.length) return [];
  console.error(whyLine(stale));
  const had = new Map(stale.map((s) => [s.name, s.why === "its source changed"]));
  const outcome = await buildAndActivate(send, stale.map((s) => s.name), {
    partners: () => partnersOf(world),
    report: (line) => console.error(line),
    keepGoing: true,
  });
  const left: NotInstalled[] = [];
  for (const { plugin, error } of outcome.failed ?? []) {
    console.error(errorText(error));
    const before = had.get(plugin) ?? true;
    const line = `sausage: ${error.message}; ` +
      (before
        ? "the version before keeps running"
        : `it has no version before, so its calls answer with this (\`sausage build ${worldArg} ${plugin}\` when fixed)`);
    if (!before) {
      const output = (error.data as { output?: string } | undefined)?.output ?? "";
      recordStartFailure(world, plugin, error.message, output);
    }
    console.error(line);
    left.push({ plugin, line });
  }
  if (!outcome.ok && outcome.step === "activate" && outcome.built.length > 1) {
    // Refused as a set: each build that passes the checks alone (a provider before its
    // consumers, by passes) is activated; one refused is left out, as a failed test leaves it.
    console.error(
      `sausage: activating them together was refused (${
        outcome.error?.message.split("\n")[0]
      }): activating each alone`,
    );
    const refused = await oneByOne(send, outcome.built);
    for (const b of outcome.built) {
      if (!refused.some((r) => r.plugin === b.plugin)) clearStartFailure(world, b.plugin);
    }
    return [...left, ...refused];
  }
  if (outcome.built.length) printOutcome(outcome.plugins, outcome, true, worldArg);
  if (outcome.ok) { for (const b of outcome.built) clearStartFailure(world, b.plugin); }
  return left;
}

/**
 * Activates `built` one at a time, in passes while one more gets in (a
 * consumer after its provider); resolves with those refused, each said in
 * one line (the refusal's first line).
 */
async function oneByOne(send: Send, built: BuiltFile[]): Promise<NotInstalled[]> {
  let todo = [...built];
  const refusals = new Map<string, string>();
  for (let progress = true; progress && todo.length;) {
    progress = false;
    const next: BuiltFile[] = [];
    for (const b of todo) {
      const r = await send("core.activate", { ...b });
      if (r.error) {
        refusals.set(b.plugin, r.error.message.split("\n")[0]);
        next.push(b);
      } else {
        progress = true;
        console.error(`sausage: ${b.plugin} is active`);
      }
    }
    todo = next;
  }
  return todo.map((b) => {
    const line = `sausage: ${refusals.get(b.plugin)} (built to ${b.wasm}, not installed)`;
    console.error(line);
    return { plugin: b.plugin, line };
  });
}
