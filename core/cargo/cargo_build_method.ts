/**
 * `cargo.build {"plugin": "notes"}` (section 11): a native method of the
 * host, run as a process (`cargo-<uuidv7>`, with `/proc/<pid>/` and journal
 * entries). It runs the tests of `/plugins/<name>/source/` under WASI, builds
 * the release component (beside the tests, once they compiled), and returns
 * `{"wasm": "/state/cargo/builds/<n>/<name>.wasm", "tests": {passed, failed, output}, "warnings": [...]}`.
 * Each line cargo prints is a line of its stderr and a `progress`
 * notification (`{"line": …}`) to the caller. A failed step is the error
 * {@link CARGO_BUILD_FAILED} with a one-line message; its `data` has the
 * step and the compiler's or the tests' output. A TypeScript plugin's source
 * (`plugin.ts`, no `Cargo.toml`) is built by the same method, with the same
 * answer and errors (`typescript/ts_build_method.ts`).
 *
 * Each world's builds have a target folder of their own
 * (`cargo/build_folders.ts`; std comes from the toolchain's sysroot), so no
 * world's build reads what another world's build wrote. The build folder
 * (`state/cargo/builds/<n>/`), the source and the SDK copy are reached
 * through real folders of the world only (`world_files.ts`): a link a guest
 * left on the way is refused, never followed.
 *
 * @module
 */

import type { OpenTestHost } from "../test_runner/test_runner.ts";
import { ErrorCode, HostError } from "../../rpc/errors.ts";
import { stringParam } from "../../rpc/params.ts";
import { BuildError, buildPlugin, type BuildResult } from "./cargo_build.ts";
import { cargoTest, type CargoTestResult } from "./test_run.ts";
import { BuildRefused, detectToolchain } from "./toolchain.ts";
import { importWarnings } from "./unused_imports.ts";
import { recordBuilt, sourceHash } from "./source_stamp.ts";
import { isCcFailure, NO_WASI_CC } from "./wasi_cc.ts";
import type { NativeContext, NativeMethod } from "../processes/native_process.ts";
import { pluginNameProblem, type World } from "../world/world.ts";
import { sourceLanguage } from "../typescript/ts_source.ts";
import { inWorldFolder, removeWorldEntry, writeWorldFile } from "../world/world_files.ts";

/** The error code of a failed `cargo.build` (JSON-RPC's range for server errors). */
export const CARGO_BUILD_FAILED = ErrorCode.BuildFailed;

/** What `cargo.build` needs from the host. */
export interface CargoBuildDeps {
  world: World;
  /** Opens test hosts, so that a build's tests run in this process (`CargoTestOptions`). */
  openTestHost?: OpenTestHost;
  /** Resolves with the world's SDK folder once its copy is up to date. */
  sdk(): Promise<string>;
  /**
   * A built component's `rpc.discover` document (kept next to it as
   * `<name>.openrpc.json`) and what activating it would break (the
   * activation check's text, put first in the warnings), or null.
   */
  breaks?(
    plugin: string,
    file: string,
  ): Promise<{ document: unknown; refusal: string | null }>;
}

/** What `cargo.build` returns. */
export interface CargoBuildResult {
  /** The new component, as a path in the world: `/state/cargo/builds/<n>/<name>.wasm`. */
  wasm: string;
  tests: { passed: number; failed: number; output: string };
  /** Unused imported methods first (one line each), then the compiler's other warnings. */
  warnings: string[];
}

/** How the release build beside the tests ended, and what it would break (`breaks`). */
interface Released {
  built?: BuildResult;
  error?: unknown;
  checked?: Awaited<ReturnType<NonNullable<CargoBuildDeps["breaks"]>>> | null;
}

/** The builds folder of a world, relative to it. */
const BUILDS = "state/cargo/builds";

/**
 * Makes the next numbered build folder (`state/cargo/builds/<n>/`) inside
 * the world (no link followed on the way); returns `n`.
 */
function newBuild(world: World): number {
  return inWorldFolder(world.root, BUILDS, () => {
    let n = 0;
    for (const e of Deno.readDirSync(".")) {
      if (/^\d+$/.test(e.name)) n = Math.max(n, Number(e.name));
    }
    for (;;) {
      try {
        Deno.mkdirSync(String(++n));
        return n;
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
    }
  });
}

/** What libtest needs on the offline toolchain and a crate without the SDK lacks. */
const NO_PTHREAD_STUBS =
  "the test binary needs pthread_join and pthread_detach, which the offline toolchain's wasi-libc " +
  'lacks: depend on sausage-plugin (it has them), or add two #[no_mangle] extern "C" stubs ' +
  "that return 52 (ENOSYS); tests run one per instance, so they never run";

/** The failure of a step, with hints about C compilers and pthread stubs when they apply. */
async function failure(
  message: string,
  data: Record<string, unknown>,
  output: string,
): Promise<HostError> {
  const hints: string[] = [];
  if (isCcFailure(output) && !(await detectToolchain().catch(() => null))?.cc) {
    hints.push(NO_WASI_CC);
  }
  if (/undefined symbol: pthread_(join|detach)/.test(output)) hints.push(NO_PTHREAD_STUBS);
  return new HostError("build-failed", message, {
    ...data,
    output,
    ...(hints.length ? { warnings: hints } : {}),
  });
}

/**
 * A TypeScript plugin's build (`typescript/ts_build_method.ts`, loaded with
 * the TypeScript compiler on the first one) into the next build folder,
 * which goes when the build fails.
 */
async function typescriptBuild(
  deps: CargoBuildDeps,
  plugin: string,
  source: string,
  progress: (line: string) => void,
): Promise<CargoBuildResult> {
  const n = newBuild(deps.world);
  try {
    const { buildTs } = await import("../typescript/ts_build_method.ts");
    return await buildTs({
      world: deps.world,
      plugin,
      source,
      folder: `${BUILDS}/${n}`,
      progress,
      openTestHost: deps.openTestHost,
      breaks: deps.breaks,
    });
  } catch (e) {
    try {
      removeWorldEntry(deps.world.root, `${BUILDS}/${n}`);
    } catch { /* left behind */ }
    throw e;
  }
}

/** Builds the `cargo.build` method of a world. */
export function cargoBuildMethod(deps: CargoBuildDeps): NativeMethod {
  return async (ctx: NativeContext) => {
    const plugin = stringParam(ctx.params, "plugin");
    const problem = pluginNameProblem(plugin);
    if (problem) throw new HostError("invalid-params", problem);
    const source = `${deps.world.pluginDir(plugin)}/source`;
    if ((await Deno.lstat(source).catch(() => undefined))?.isSymlink) {
      throw new HostError(
        "invalid-params",
        `/plugins/${plugin}/source is a link: cargo.build builds a real folder only ` +
          `(a link could lead elsewhere in the world or out of it); make it a folder`,
      );
    }
    const progress = (line: string) => {
      ctx.log(line);
      ctx.notify("progress", { line });
    };
    const language = sourceLanguage(source);
    if (language === "typescript") return await typescriptBuild(deps, plugin, source, progress);
    if (language !== "rust") {
      throw new HostError(
        "invalid-params",
        `${plugin} has no source: cargo.build builds /plugins/${plugin}/source/ ` +
          `(a Rust crate's Cargo.toml or a TypeScript plugin's plugin.ts; neither is there)`,
      );
    }
    let sdkDir: string;
    try {
      sdkDir = await deps.sdk();
    } catch (e) {
      throw new HostError(
        "build-failed",
        `${plugin} was not built: the SDK could not be copied to /plugins/cargo/sdk: ${
          e instanceof Error ? e.message : e
        }`,
        { step: "prepare", output: "" },
      );
    }
    const started = performance.now();
    // The source as it is before the tests: recorded with the component (`source_stamp.ts`).
    const sourceBefore = await sourceHash(source).catch(() => undefined);

    // The release build starts once the tests compiled and runs beside them (cargo locks each
    // profile's folder apart), and so does the check of what it would break once it is built
    // (its `rpc.discover`, ~0.1 s that used to wait for the tests); failed tests stop it, and
    // its folder goes.
    const release = new AbortController();
    const stopRelease = () => release.abort();
    ctx.signal.addEventListener("abort", stopRelease);
    let releasing: Promise<Released> | undefined;
    let n = 0;
    const startRelease = () => {
      n = newBuild(deps.world);
      const file = `${deps.world.root}/${BUILDS}/${n}/${plugin}.wasm`;
      releasing = buildPlugin(source, file, {
        sdkDir,
        onProgress: progress,
        signal: release.signal,
        world: deps.world.root,
      }).then(async (built) => {
        if (release.signal.aborted) return { built };
        const checked = await deps.breaks?.(plugin, file).catch(() => null);
        return { built, checked };
      }, (error) => ({ error }));
    };
    const dropRelease = async () => {
      release.abort();
      await releasing;
      if (n) {
        try {
          removeWorldEntry(deps.world.root, `${BUILDS}/${n}`);
        } catch { /* left behind */ }
      }
    };

    let tests: CargoTestResult;
    try {
      tests = await cargoTest(source, {
        sdkDir,
        onProgress: progress,
        signal: ctx.signal,
        world: deps.world.root,
        onCompiled: startRelease,
        openTestHost: deps.openTestHost,
      });
    } catch (e) {
      await dropRelease();
      ctx.signal.removeEventListener("abort", stopRelease);
      if (!(e instanceof BuildError) || ctx.signal.aborted) throw e;
      if (e instanceof BuildRefused) {
        throw await failure(`${plugin} was not built: ${e.message}`, { step: "prepare" }, e.output);
      }
      throw await failure(
        `${plugin} was not built: it does not compile`,
        { step: "test" },
        e.output,
      );
    }
    const testSummary = { passed: tests.passed, failed: tests.failed, output: tests.output };
    if (!tests.success) {
      await dropRelease();
      ctx.signal.removeEventListener("abort", stopRelease);
      const message = tests.failed
        ? `${plugin} was not built: ${tests.failed} of ${tests.passed + tests.failed} tests failed`
        : `${plugin} was not built: its tests did not run`;
      throw await failure(message, { step: "test", tests: testSummary }, tests.output);
    }
    ctx.log(`tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.ignored} ignored`);

    if (!releasing) startRelease();
    const wasm = `/state/cargo/builds/${n}/${plugin}.wasm`;
    let warnings: string[];
    try {
      const done = await releasing!;
      ctx.signal.removeEventListener("abort", stopRelease);
      if (!done.built) throw done.error;
      const built = done.built;
      warnings = await importWarnings(built.diagnostics, source);
      if (sourceBefore) {
        await recordBuilt(deps.world, plugin, `${deps.world.root}${wasm}`, sourceBefore)
          .catch(() => {});
      }
      // The consumers this build would break, before anyone activates it.
      const checked = done.checked;
      if (checked) {
        // Its document, for `sausage import --built` before it is activated.
        try {
          writeWorldFile(
            deps.world.root,
            `${BUILDS}/${n}/${plugin}.openrpc.json`,
            JSON.stringify(checked.document, null, 2) + "\n",
          );
        } catch { /* the import reads the active version's then */ }
      }
      if (checked?.refusal) {
        const why = checked.refusal.replace(/^\S+ was not activated: /, "");
        warnings.unshift(`activating this build would be refused: ${why}`);
      }
    } catch (e) {
      try {
        removeWorldEntry(deps.world.root, `${BUILDS}/${n}`);
      } catch { /* left behind */ }
      if (!(e instanceof BuildError) || ctx.signal.aborted) throw e;
      throw await failure(
        `${plugin} was not built: cargo build failed`,
        { step: "build" },
        e.output,
      );
    }
    ctx.log(`built ${wasm} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const result: CargoBuildResult = { wasm, tests: testSummary, warnings };
    return result;
  };
}
