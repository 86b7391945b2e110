/**
 * `sausage build <world> <plugin>... [--json]`: tests, builds and activates
 * plugins in one command: `cargo.build` of each (its tests under WASI, then
 * the build, cargo's lines streamed to stderr as they come), then one
 * `core.activate` of them all, checked together against their providers and
 * consumers: a change that breaks a consumer is made by naming both. Through the world's
 * running host when there is one (its new calls get the new version at
 * once), else through a transient host. A failure prints the compiler's or
 * the tests' text, or the refusal as the proposal writes it with where the
 * new files are and the commands that would activate them, on stderr;
 * `--json` also prints the outcome as one JSON object on stdout (without
 * it, stdout stays empty, on a terminal or not).
 *
 * Exit codes: 0 activated, 1 not (the tests, the build or the checks failed).
 *
 * @module
 */

import { pluginNameProblem, type World, writeCargoConfig } from "../core/mod.ts";
import type { Request, Response } from "../rpc/message.ts";
import { parseArgs, UsageError } from "./args.ts";
import { errorText, noteText } from "./error_text.ts";
import { type Send, withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";
import { colorWanted, makeStyle } from "./console/style.ts";
import { sourceLanguage } from "../core/typescript/ts_source.ts";

/** Usage of `build`. */
export const BUILD_USAGE = "sausage build <world> <plugin>... [--json]";

/** One plugin's new file: its name and the world path of the wasm built. */
export interface BuiltFile {
  plugin: string;
  wasm: string;
}

/** What one test-build-activate round gave. */
export interface BuildOutcome {
  ok: boolean;
  /** The `cargo.build` result (of the last plugin built), or the error object of the step that failed. */
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  /** Which step failed: `build` (tests or build) or `activate`. */
  step?: "build" | "activate";
  /** The plugin whose build failed (step `build`). */
  plugin?: string;
  /** The plugins of the round: those given, then the partners that joined (`RoundOptions.partners`). */
  plugins: string[];
  /** The files built so far, by plugin, in the order given. */
  built: BuiltFile[];
  /** Tests passed, summed over the plugins built. */
  passed: number;
  /** The builds' warnings, each prefixed with its plugin when several were built. */
  warnings: string[];
  /** Seconds the whole round took. */
  seconds: number;
  /** With `keepGoing`: the plugins left out because their tests or build failed, and why. */
  failed?: { plugin: string; error: { code: number; message: string; data?: unknown } }[];
}

/** Options of {@link buildAndActivate}. */
export interface RoundOptions {
  /**
   * The plugins whose source changed (not yet active): when the activation
   * is refused because of such a plugin (a consumer that follows the change,
   * or a provider that makes it), it is built too and all are activated
   * together (`dev` and `run`, for changes saved one after the other).
   */
  partners?: () => Promise<string[]>;
  /** Hears a line when partners join. */
  report?: (line: string) => void;
  /**
   * A plugin whose tests or build fail is left out of the round (kept in
   * {@link BuildOutcome.failed}) and the others are built and activated
   * (the build at start: one broken plugin does not keep the others out).
   */
  keepGoing?: boolean;
}

/**
 * Tests and builds each of `plugins` through `send` (in the order given),
 * then activates them together: one `core.activate`, checked as a set
 * against the world's other plugins (PROTOCOL 10.3). Resolves with what
 * happened (never throws for a failed step).
 */
export async function buildAndActivate(
  send: Send,
  plugins: string | string[],
  opts: RoundOptions = {},
): Promise<BuildOutcome> {
  const names = typeof plugins === "string" ? [plugins] : [...plugins];
  const started = performance.now();
  const seconds = () => Number(((performance.now() - started) / 1000).toFixed(1));
  const built: BuiltFile[] = [];
  let passed = 0;
  const warnings: [string, string][] = []; // [plugin, warning]
  let result: unknown;
  const failed: NonNullable<BuildOutcome["failed"]> = [];
  const outcome = (fields: Partial<BuildOutcome>): BuildOutcome => ({
    ok: false,
    plugins: names,
    built,
    passed,
    warnings: roundWarnings(built, warnings),
    seconds: seconds(),
    ...(opts.keepGoing ? { failed } : {}),
    ...fields,
  });
  let todo = [...names];
  for (;;) {
    for (const plugin of todo) {
      const response: Response = await send("cargo.build", { plugin });
      if (response.error && opts.keepGoing) {
        failed.push({ plugin, error: response.error });
        names.splice(names.indexOf(plugin), 1);
        continue;
      }
      if (response.error) {
        return outcome({ step: "build", plugin, error: response.error });
      }
      result = response.result;
      const r = response.result as {
        wasm: string;
        tests?: { passed?: number };
        warnings?: string[];
      };
      built.push({ plugin, wasm: r.wasm });
      passed += r.tests?.passed ?? 0;
      warnings.push(...(r.warnings ?? []).map((w): [string, string] => [plugin, w]));
    }
    if (!built.length) {
      return outcome({ step: "build", plugin: failed[0]?.plugin, error: failed[0]?.error });
    }
    const activated = await send(
      "core.activate",
      built.length === 1 ? { ...built[0] } : { plugins: built.map((b) => ({ ...b })) },
    );
    if (!activated.error) {
      return outcome({ ok: true, result });
    }
    // A refusal that names a plugin changed too: build it, and try them together.
    const partners = opts.partners ? new Set(await opts.partners()) : new Set<string>();
    todo = refusalOthers(activated.error, names).filter((p) => partners.has(p));
    if (!todo.length) {
      return outcome({ step: "activate", error: activated.error });
    }
    opts.report?.(
      `sausage: the refusal names ${todo.join(", ")}, whose source changed too: ` +
        `building ${todo.length === 1 ? "it" : "them"} to activate with ${names.join(", ")}`,
    );
    names.push(...todo);
  }
}

/**
 * The warnings of a round's builds, each prefixed with its plugin when
 * several were built ("activating this build alone would be refused" says
 * nothing then: the activation checks them as a set).
 */
function roundWarnings(built: BuiltFile[], all: [string, string][]): string[] {
  if (built.length === 1) return all.map(([, w]) => w);
  return all.filter(([, w]) => !w.startsWith("activating this build would be refused"))
    .map(([plugin, w]) => `${plugin}: ${w}`);
}

/** The other plugins a refusal names (consumers that break, providers of imports that break). */
export function refusalOthers(error: { data?: unknown } | undefined, names: string[]): string[] {
  const data = error?.data as
    | { problems?: { role?: string; consumer?: string; provider?: string }[] }
    | undefined;
  const others = new Set<string>();
  for (const p of data?.problems ?? []) {
    const other = p.role === "import" ? p.provider : p.consumer;
    if (other && !names.includes(other)) others.add(other);
  }
  return [...others];
}

/** Checks that `plugin` is a plugin of `world` with a source folder; throws a usage error if not. */
export function checkPluginSource(world: World, plugin: string): void {
  const problem = pluginNameProblem(plugin);
  if (problem) throw new UsageError(problem);
  if (!sourceLanguage(`${world.pluginDir(plugin)}/source`)) {
    throw new UsageError(
      `${plugin} has no source in ${world.root} (no plugins/${plugin}/source/Cargo.toml ` +
        `or plugin.ts): make one with \`sausage new <world> ${plugin}\``,
    );
  }
}

/** `a`, `a and b`, `a, b and c`. */
function names(list: string[]): string {
  return list.length <= 1 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}

/** A shell word: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * After a refused activation: where each built file is, the `sausage build`
 * that would activate the plugins together with those the refusal names,
 * and the `core.activate` that would install these very files (the same
 * checks). `world` is the world as the user wrote it.
 */
export function refusalHints(world: string, outcome: BuildOutcome): string[] {
  const names = outcome.built.map((b) => b.plugin);
  const others = new Set(refusalOthers(outcome.error, names));
  const lines = outcome.built.map((b) =>
    `sausage: ${b.plugin} was built to ${world.replace(/\/$/, "")}${b.wasm}`
  );
  if (others.size) {
    lines.push(
      `sausage: once ${[...others].join(", ")} ${others.size === 1 ? "is" : "are"} changed to ` +
        `match, activate them together: sausage build ${
          [world, ...names, ...others].map(shellWord).join(" ")
        }`,
    );
  }
  const params = outcome.built.length === 1 ? outcome.built[0] : { plugins: outcome.built };
  lines.push(
    `sausage: to activate ${outcome.built.length === 1 ? "this build" : "these builds"} ` +
      `without building again: sausage call ${shellWord(world)} core.activate ${
        shellWord(JSON.stringify(params))
      }`,
  );
  return lines;
}

/**
 * Prints the outcome of a round as text on stderr (the compiler's messages,
 * the tests' report or the refusal, then a line for people), and for
 * scripts (`people` false) also as one JSON object on stdout. `world` is the
 * world as the user wrote it, for the commands a refusal suggests.
 */
export function printOutcome(
  plugins: string | string[],
  outcome: BuildOutcome,
  people: boolean,
  world = "<world>",
): void {
  const list = typeof plugins === "string" ? [plugins] : plugins;
  if (!people) console.log(JSON.stringify(outcome));
  // Colour on a terminal, as the console does (none with NO_COLOR).
  const style = makeStyle(colorWanted(Deno.stderr.isTerminal(), (n) => Deno.env.get(n)));
  const all = names(list);
  if (outcome.ok) {
    for (const w of outcome.warnings) console.error(`warning: ${w}`);
    const tests = outcome.passed
      ? `${outcome.passed} ${outcome.passed === 1 ? "test" : "tests"} passed`
      : "no tests";
    console.error(style.bold(
      `sausage: ${all} ${list.length === 1 ? "is" : "are"} active: ${tests}, built and ` +
        `activated ${list.length === 1 ? "" : "together "}in ${outcome.seconds} s`,
    ));
  } else if (outcome.step === "activate") {
    console.error(errorText(outcome.error!));
    console.error("");
    for (const line of refusalHints(world, outcome)) console.error(line);
    console.error(style.red(
      `sausage: ${all} built, but ${list.length === 1 ? "was" : "were"} not activated ` +
        `(the version before keeps running)`,
    ));
  } else {
    console.error(errorText(outcome.error!));
    const rest = list.filter((p) => p !== outcome.plugin);
    console.error(style.red(
      `sausage: ${outcome.plugin ?? all} was not built (the version before keeps running` +
        `${rest.length > 1 || list.length > 1 ? `; nothing of ${all} was activated` : ""})`,
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
  if (positional.length < 2) throw new UsageError(`usage: ${BUILD_USAGE}`);
  const world = openWorld(positional[0]);
  const plugins = positional.slice(1);
  if (new Set(plugins).size !== plugins.length) {
    throw new UsageError("a plugin is named twice");
  }
  for (const plugin of plugins) checkPluginSource(world, plugin);
  await writeCargoConfig(world.root, { skipSysroot: true }).catch(() => {});
  const people = !flags.has("--json");
  const outcome = await withWorld(
    world,
    "build",
    printProgress,
    (send) => buildAndActivate(send, plugins),
  );
  printOutcome(plugins, outcome, people, positional[0]);
  return outcome.ok ? 0 : 1;
}
