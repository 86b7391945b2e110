/**
 * `cargo.build` of a TypeScript plugin (a `source/plugin.ts` and no
 * `Cargo.toml`, `ts_source.ts`): the same method, answer and errors as a
 * Rust crate's build (`cargo/cargo_build_method.ts`), so the agent, `run`
 * and `dev` at start, and `sausage build` build either language the same
 * way. Its tests first (`*_test.ts`, built into `<plugin>.tests.wasm` and
 * run by `sausage test`'s runner, each test a process in an empty world);
 * the plugin is built beside them (`ts_build.ts`, in a worker:
 * `ts_compiler.ts`) and kept only when they pass. Built in the host's
 * process, not in bubblewrap: nothing of the plugin runs at build time (the
 * TypeScript compiler reads its files, clang compiles the bundled script as
 * data).
 *
 * @module
 */

import type { CargoBuildDeps, CargoBuildResult } from "../cargo/cargo_build_method.ts";
import { recordBuilt, sourceHash } from "../cargo/source_stamp.ts";
import { runTests } from "../test_runner/mod.ts";
import { startTestSandboxes, type TestSandboxes } from "../test_runner/test_pool.ts";
import { cacheDir } from "../paths.ts";
import type { World } from "../world/world.ts";
import { writeWorldFile } from "../world/world_files.ts";
import { HostError } from "../../rpc/errors.ts";
import { buildInWorker } from "./ts_compiler.ts";

/** What a TypeScript plugin's build needs. */
export interface TsBuildOptions {
  world: World;
  plugin: string;
  /** The plugin's source folder (host path). */
  source: string;
  /** The build folder, made: relative to the world (`state/cargo/builds/<n>`). */
  folder: string;
  /** Each line of progress (the tests' lines, the steps). */
  progress(line: string): void;
  /** Opens the tests' private hosts; without it the build fails at its first step. */
  openTestHost?: CargoBuildDeps["openTestHost"];
  /** The built file's document and what activating it would break (`cargo.build`'s check). */
  breaks?: CargoBuildDeps["breaks"];
}

/** The tests' counts and libtest's report. */
interface TestSummary {
  passed: number;
  failed: number;
  output: string;
}

/** True when the folder `source` holds test modules. */
function hasTests(source: string): boolean {
  return [...Deno.readDirSync(source)].some((e) =>
    e.isFile && (e.name.endsWith("_test.ts") || e.name.endsWith(".test.ts"))
  );
}

/** A failed step as `cargo.build` answers one: -32000, `data: {step, output, …}`. */
function failure(e: unknown, step: string, extra: Record<string, unknown> = {}): HostError {
  if (e instanceof HostError) return e;
  const output = (e as { output?: unknown }).output;
  return new HostError("build-failed", e instanceof Error ? e.message : String(e), {
    step,
    output: typeof output === "string" ? output : "",
    ...extra,
  });
}

/**
 * Tests and builds the TypeScript plugin of `opts`; resolves as `cargo.build`
 * does (`{wasm, tests, warnings}`), or throws its error (-32000, with the
 * step and the compiler's or the tests' output).
 */
export async function buildTs(opts: TsBuildOptions): Promise<CargoBuildResult> {
  const { world, plugin, source, folder, progress } = opts;
  const host = `${world.root}/${folder}`;
  const wasm = `/${folder}/${plugin}.wasm`;
  const started = performance.now();
  // The source as it is before the tests: recorded with the module (`source_stamp.ts`).
  const sourceBefore = await sourceHash(source).catch(() => undefined);
  progress(`Checking ${plugin} (TypeScript)`);

  let release: Promise<unknown> | undefined;
  const startRelease = () =>
    release ??= buildInWorker(source, plugin, `${world.root}${wasm}`).then(() => null, (e) => e);
  let tests: TestSummary = { passed: 0, failed: 0, output: "" };
  if (hasTests(source)) {
    if (!opts.openTestHost) {
      throw failure(new Error(`${plugin} was not built: this host cannot run tests`), "prepare");
    }
    // The tests' sandboxes start, and the plugin is built, while the tests' binary is
    // built and run (it is kept only when they pass): on 2 cores the two clang runs overlap.
    const sandboxes = startTestSandboxes(source, cacheDir());
    const testBuild = buildInWorker(source, plugin, `${host}/${plugin}.tests.wasm`, true);
    startRelease(); // asked second: the worker checks the tests' program first
    try {
      try {
        await testBuild;
      } catch (e) {
        await release;
        throw failure(e, "test");
      }
      progress(`Running ${plugin}'s tests`);
      tests = await runTsTests(
        source,
        `${host}/${plugin}.tests.wasm`,
        opts.openTestHost,
        progress,
        await sandboxes.sandboxes,
      );
    } finally {
      await sandboxes.close();
    }
    if (tests.failed || !/test result: /.test(tests.output)) {
      await release;
      const message = tests.failed
        ? `${plugin} was not built: ${tests.failed} of ${tests.passed + tests.failed} tests failed`
        : `${plugin} was not built: its tests did not run`;
      throw failure(new Error(message), "test", { output: tests.output, tests });
    }
  }
  const error = await startRelease();
  if (error) throw failure(error, "build");

  if (sourceBefore) {
    await recordBuilt(world, plugin, `${world.root}${wasm}`, sourceBefore).catch(() => {});
  }
  const warnings: string[] = [];
  // Its document (what `sausage import --built` reads) and the consumers it would break.
  const checked = await opts.breaks?.(plugin, `${world.root}${wasm}`).catch(() => null);
  if (checked) {
    try {
      writeWorldFile(
        world.root,
        `${folder}/${plugin}.openrpc.json`,
        JSON.stringify(checked.document, null, 2) + "\n",
      );
    } catch { /* the import reads the active version's then */ }
    if (checked.refusal) {
      const why = checked.refusal.replace(/^\S+ was not activated: /, "");
      warnings.push(`activating this build would be refused: ${why}`);
    }
  }
  progress(`Built ${wasm} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { wasm, tests, warnings };
}

/**
 * Runs the test binary `binary` as `sausage test` does, each line of its
 * report a line of progress; resolves with the counts and the report.
 */
async function runTsTests(
  source: string,
  binary: string,
  openHost: NonNullable<CargoBuildDeps["openTestHost"]>,
  progress: (line: string) => void,
  sandboxes: TestSandboxes,
): Promise<TestSummary> {
  let output = "";
  let pending = "";
  const write = (text: string) => {
    output += text;
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) if (line.trim()) progress(line);
  };
  await runTests({
    binary,
    args: [],
    packageDir: source,
    env: {},
    write,
    writeErr: write,
    openHost,
    sandboxes,
  });
  if (pending.trim()) progress(pending);
  const totals = output.match(/test result: \w+\. (\d+) passed; (\d+) failed/);
  return { passed: Number(totals?.[1] ?? 0), failed: Number(totals?.[2] ?? 0), output };
}
