/**
 * `sausage build <world> <plugin> [--json]`: tests, builds and activates one
 * plugin in one command: `cargo.build` (its tests under WASI, then the
 * build, cargo's lines streamed to stderr as they come), then `core.activate`
 * with the checks against its providers and consumers. Through the world's
 * running host when there is one (its new calls get the new version at
 * once), else through a transient host. A failure prints the compiler's or
 * the tests' text, or the refusal as the proposal writes it, on stderr;
 * `--json` (or a stdout that is not a terminal) also prints the outcome as
 * one JSON object on stdout.
 *
 * Exit codes: 0 activated, 1 not (the tests, the build or the checks failed).
 *
 * @module
 */

import { pluginNameProblem, type World, writeCargoConfig } from "../core/mod.ts";
import type { Request, Response } from "../rpc/message.ts";
import { parseArgs, UsageError } from "./args.ts";
import { errorText, forPeople, noteText } from "./error_text.ts";
import { type Send, withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";
import { colorWanted, makeStyle } from "./console/style.ts";

/** Usage of `build`. */
export const BUILD_USAGE = "sausage build <world> <plugin> [--json]";

/** What one test-build-activate round gave. */
export interface BuildOutcome {
  ok: boolean;
  /** The `cargo.build` result, or the error object of the step that failed. */
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  /** Which step failed: `build` (tests or build) or `activate`. */
  step?: "build" | "activate";
  /** Seconds the whole round took. */
  seconds: number;
}

/**
 * Tests, builds and activates `plugin` through `send`; cargo's progress
 * lines go to `onLine`. Resolves with what happened (never throws for a
 * failed step).
 */
export async function buildAndActivate(send: Send, plugin: string): Promise<BuildOutcome> {
  const started = performance.now();
  const seconds = () => Number(((performance.now() - started) / 1000).toFixed(1));
  const built: Response = await send("cargo.build", { plugin });
  if (built.error) return { ok: false, step: "build", error: built.error, seconds: seconds() };
  const wasm = (built.result as { wasm: string }).wasm;
  const activated = await send("core.activate", { plugin, wasm });
  if (activated.error) {
    return { ok: false, step: "activate", error: activated.error, seconds: seconds() };
  }
  return { ok: true, result: built.result, seconds: seconds() };
}

/** Checks that `plugin` is a plugin of `world` with a source folder; throws a usage error if not. */
export function checkPluginSource(world: World, plugin: string): void {
  const problem = pluginNameProblem(plugin);
  if (problem) throw new UsageError(problem);
  try {
    Deno.statSync(`${world.pluginDir(plugin)}/source/Cargo.toml`);
  } catch {
    throw new UsageError(
      `${plugin} has no source in ${world.root} (no plugins/${plugin}/source/Cargo.toml): ` +
        `make one with \`sausage new <world> ${plugin}\``,
    );
  }
}

/**
 * Prints the outcome of a round as text on stderr (the compiler's messages,
 * the tests' report or the refusal, then one line), and for scripts
 * (`people` false) also as one JSON object on stdout.
 */
export function printOutcome(plugin: string, outcome: BuildOutcome, people: boolean): void {
  if (!people) console.log(JSON.stringify(outcome));
  // Colour on a terminal, as the console does (none with NO_COLOR).
  const style = makeStyle(colorWanted(Deno.stderr.isTerminal(), (n) => Deno.env.get(n)));
  if (outcome.ok) {
    const r = outcome.result as { tests?: { passed: number }; warnings?: string[] };
    for (const w of r.warnings ?? []) console.error(`warning: ${w}`);
    console.error(style.bold(
      `sausage: ${plugin} is active: ${r.tests?.passed ?? 0} tests passed, built and activated ` +
        `in ${outcome.seconds} s`,
    ));
  } else {
    console.error(errorText(outcome.error!));
    console.error(style.red(
      outcome.step === "activate"
        ? `sausage: ${plugin} built, but was not activated (the version before keeps running)`
        : `sausage: ${plugin} was not built (the version before keeps running)`,
    ));
  }
}

/** Prints cargo's progress lines of a notification on stderr. */
export function printProgress(msg: Request): void {
  console.error(noteText(msg.params));
}

/** Runs the subcommand; resolves with the exit code. */
export async function build(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length !== 2) throw new UsageError(`usage: ${BUILD_USAGE}`);
  const world = openWorld(positional[0]);
  const plugin = positional[1];
  checkPluginSource(world, plugin);
  await writeCargoConfig(world.root, { skipSysroot: true }).catch(() => {});
  const people = forPeople(flags.has("--json"));
  const outcome = await withWorld(
    world,
    "build",
    printProgress,
    (send) => buildAndActivate(send, plugin),
  );
  printOutcome(plugin, outcome, people);
  return outcome.ok ? 0 : 1;
}
