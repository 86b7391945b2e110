/**
 * `cargo test` for a plugin's crate under WASI: cargo builds the test
 * binaries for the plugin target and runs each through `sausage test` (its
 * runner), which runs every test in its own instance. {@link cargoTest}
 * runs it (for `cargo.build` and the tests); {@link cargoTestCommand} gives
 * the exact command. With a real `wasm32-wasip2` target (rustup) it is:
 *
 * ```sh
 * CARGO_TARGET_WASM32_WASIP2_RUNNER="/path/to/sausage test" cargo test --target wasm32-wasip2
 * ```
 *
 * On the offline toolchain (Debian's rustc, `toolchain.ts`) cargo needs the
 * build's flags, with std and libtest from the toolchain's sysroot
 * (`sysroot.ts`); a `.cargo/config.toml` cannot carry them without the
 * vendored source's paths, so they are flags:
 *
 * ```sh
 * C=~/.cache/sausage
 * RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
 * CARGO_TARGET_DIR=$C/builds/offline-wasip1/<world>/target \
 * CARGO_TARGET_WASM32_WASIP1_RUNNER="/path/to/sausage test" \
 * /usr/bin/cargo test --target wasm32-wasip1 --offline \
 *   --config 'source.crates-io.replace-with="sausage-vendor"' \
 *   --config "source.sausage-vendor.directory=\"$C/toolchain/vendor\"" \
 *   --config "patch.crates-io.wit-bindgen.path=\"$C/toolchain/wit-bindgen-0.45.1\"" \
 *   --config 'target.wasm32-wasip1.linker="/usr/bin/wasm-ld"' \
 *   --config 'target.wasm32-wasip1.rustflags=["--sysroot", "<C>/toolchain/sysroot-…", "-C", "link-self-contained=no", "-L", "/usr/lib/wasm32-wasi", "-C", "link-arg=/usr/lib/wasm32-wasi/crt1-command.o"]' \
 *   --config 'target.wasm32-wasip1.rustdocflags=[the same]' \
 *   --config 'patch.crates-io.sausage-plugin.path="<sdk>/sausage-plugin"' \
 *   --config 'patch.crates-io.sausage-plugin-macros.path="<sdk>/sausage-plugin-macros"'
 * ```
 *
 * (the host also keeps a lockfile per crate in the cache, and sets `CC_…` /
 * `AR_…` when a WASI clang is installed). Test binaries on this toolchain
 * need `pthread_join` / `pthread_detach` stubs, which the SDK provides.
 * Doc tests run too: each is a plain program, run once by the runner.
 *
 * @module
 */

import { BuildError, crateArgs, DEFAULT_SDK_DIR, lines, prepareBuild } from "./cargo_build.ts";
import type { Diagnostic } from "./diagnostic.ts";
import { cargoEnv } from "./build_env.ts";
import { spawnGroup } from "./process_group.ts";
import { unusedPatchFilter } from "./patch_note.ts";
import { buildSpec, jailed } from "./build_jail.ts";
import type { BuildPlace } from "./build_folders.ts";
import { detectToolchain, type Toolchain } from "./toolchain.ts";
import { type BuiltTest, HostTests, packageOf } from "./tests_in_host.ts";
import type { OpenTestHost } from "../test_runner/test_runner.ts";

/** Options of {@link cargoTest}. */
export interface CargoTestOptions {
  /** The SDK folder that `sausage-plugin = "0.1"` resolves to (default this repository's `sdk/`). */
  sdkDir?: string;
  /** cargo's progress lines (`Compiling …`, `Running unittests …`). */
  onProgress?: (line: string) => void;
  /** Arguments for the test binaries (after `--`): filters, `--ignored`, … */
  testArgs?: string[];
  /** Aborting it ends cargo, the runner and the tests. */
  signal?: AbortSignal;
  /** The runner command (default: this checkout's `sausage test`). */
  runner?: string;
  /**
   * Opens test hosts in this process: with it (and no `runner`), the test
   * binaries run here, on sandboxes started while they compile; without, in
   * `sausage test` processes as cargo by hand runs them.
   */
  openTestHost?: OpenTestHost;
  /** The world whose plugin this is (its own build folders; see `BuildOptions.world`). */
  world?: string;
  /**
   * Called once cargo compiles the tests (its first `Compiling` line, else once they are
   * built), before they run: `cargo.build` starts the release build then, beside them.
   */
  onCompiled?: () => void;
}

/** What {@link cargoTest} found. */
export interface CargoTestResult {
  /** True when every test binary ran and no test failed. */
  success: boolean;
  passed: number;
  failed: number;
  ignored: number;
  /** libtest's reports of every test binary, as the runner printed them. */
  output: string;
  /** The compiler's warnings of the test build, rendered. */
  warnings: string[];
  diagnostics: Diagnostic[];
}

/** The `sausage` launcher of this checkout. */
const LAUNCHER = decodeURIComponent(new URL("../../sausage", import.meta.url).pathname);

/**
 * The runner command for cargo: this checkout's `sausage test` (in the
 * one-file form, the unpacked launcher, which the build sandbox can see), or,
 * in a compiled `sausage` binary, the binary itself.
 */
export function runnerCommand(): string {
  try {
    if (Deno.statSync(LAUNCHER).isFile) return `${LAUNCHER} test`;
  } catch { /* a compiled binary */ }
  return `${Deno.execPath()} test`;
}

/**
 * The runner that `<world>/.cargo/config.toml` names, for cargo run by hand:
 * `sausage test` of the one file that started this program
 * (`SAUSAGE_DIST_FILE`, set by its header: its path stays when a newer
 * version replaces the file), else {@link runnerCommand}.
 */
export function worldRunnerCommand(): string {
  const dist = Deno.env.get("SAUSAGE_DIST_FILE");
  return dist ? `${dist} test` : runnerCommand();
}

/** The environment variables that make `sausage test` cargo's runner for WASI targets. */
function runnerEnv(runner = runnerCommand()): Record<string, string> {
  return { CARGO_TARGET_WASM32_WASIP1_RUNNER: runner, CARGO_TARGET_WASM32_WASIP2_RUNNER: runner };
}

/** `cargo test` for the crate in `dir`: the program, its arguments and its environment. */
export async function cargoTestCommand(
  sourceDir: string,
  opts: Pick<CargoTestOptions, "sdkDir" | "runner" | "testArgs" | "world" | "onProgress"> & {
    extra?: string[];
  } = {},
): Promise<
  {
    cargo: string;
    args: string[];
    env: Record<string, string>;
    toolchain: Toolchain;
    place: BuildPlace;
  }
> {
  const tc = await detectToolchain();
  const place = await prepareBuild(tc, sourceDir, opts);
  const dir = place.dir.path;
  const flags = await crateArgs(tc, dir, place.sdk?.path ?? DEFAULT_SDK_DIR, place.target);
  const args = [
    "test",
    "--target",
    tc.target,
    "--manifest-path",
    `${dir}/Cargo.toml`,
    ...flags,
    ...opts.extra ?? [],
  ];
  if (opts.testArgs?.length) args.push("--", ...opts.testArgs);
  return {
    cargo: tc.cargo,
    args,
    env: { ...cargoEnv(tc, place.target), ...runnerEnv(opts.runner) },
    toolchain: tc,
    place,
  };
}

/** A test binary that `cargo test --no-run` built. */
export type TestExecutable = BuiltTest;

/** What {@link buildTests} built. */
export interface BuiltTests {
  executables: TestExecutable[];
  warnings: string[];
  diagnostics: Diagnostic[];
}

/**
 * `cargo test --no-run` for the crate in `sourceDir`: builds its test
 * binaries and resolves with them. Throws a {@link BuildError} whose output
 * has the compiler's messages when the tests do not compile.
 */
export async function buildTests(
  sourceDir: string,
  opts: Omit<CargoTestOptions, "testArgs" | "runner"> = {},
): Promise<BuiltTests> {
  const build = await cargoTestCommand(sourceDir, {
    ...opts,
    extra: ["--no-run", "--message-format", "json"],
  });
  if (!(await Deno.lstat(`${build.place.dir.path}/Cargo.toml`).catch(() => undefined))?.isFile) {
    throw new BuildError(
      `cargo test failed for ${sourceDir}`,
      `${sourceDir}/Cargo.toml: not found`,
    );
  }
  const compiled = await run(build, opts);
  const diagnostics: Diagnostic[] = [];
  const rendered: string[] = [];
  const executables: TestExecutable[] = [];
  for (const line of compiled.stdout) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    if (msg.reason === "compiler-artifact" && msg.profile?.test && msg.executable) {
      executables.push({
        name: msg.target.name,
        kind: msg.target.kind[0],
        path: msg.executable,
        src: msg.target.src_path,
        manifest: msg.manifest_path,
        pkg: packageOf(msg.package_id),
      });
    }
    if (msg.reason !== "compiler-message") continue;
    const d = msg.message as Diagnostic;
    rendered.push((d.rendered ?? d.message).trimEnd());
    if (d.level === "warning" && !/^\d+ warnings? emitted/.test(d.message)) diagnostics.push(d);
  }
  if (opts.signal?.aborted) throw new BuildError(`cargo test was stopped for ${sourceDir}`, "");
  if (!compiled.success) {
    throw new BuildError(
      `the tests of ${sourceDir} do not compile`,
      [
        ...rendered,
        ...compiled.stderr.filter((l) =>
          l.trim() && !/^\s*(Compiling|Finished|Blocking)\b/.test(l)
        ),
      ]
        .join("\n"),
    );
  }
  return {
    executables,
    warnings: diagnostics.map((d) => (d.rendered ?? d.message).trimEnd()),
    diagnostics,
  };
}

/** libtest's summary line of one test binary. */
const RESULT = /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;/;

/**
 * Builds the tests of the crate in `sourceDir` and runs them under WASI:
 * `cargo test --no-run` for the compiler's messages and the binaries, which
 * the test runner then runs in this process (`tests_in_host.ts`: its
 * sandboxes start while cargo compiles), and for a library
 * `cargo test --doc` with `sausage test` as the runner for its doc tests.
 * With `opts.runner`, or binaries of another package than the crate's, the
 * second step is `cargo test --no-fail-fast` with the runner, as by hand.
 * Throws a {@link BuildError} whose output has the compiler's messages when
 * the tests do not compile.
 */
export async function cargoTest(
  sourceDir: string,
  opts: CargoTestOptions = {},
): Promise<CargoTestResult> {
  const packageDir = await Deno.realPath(sourceDir).catch(() => null);
  const inHost = opts.runner === undefined && packageDir && opts.openTestHost
    ? HostTests.start(packageDir, opts.openTestHost)
    : null;
  let ran: { success: boolean; stdout: string[]; stderr: string[] };
  let diagnostics: Diagnostic[];
  try {
    // The release build starts beside the test build once cargo compiles (its first
    // `Compiling` line): on 2 cores the two compiles overlap, 1-2 s off each edit.
    let compiling = false;
    const compile = () => {
      if (!compiling) opts.onCompiled?.();
      compiling = true;
    };
    const built = await buildTests(sourceDir, {
      ...opts,
      onProgress: (line) => {
        opts.onProgress?.(line);
        if (/^\s*Compiling /.test(line)) compile();
      },
    });
    diagnostics = built.diagnostics;
    compile();
    const own = built.executables.every((t) => t.manifest === `${packageDir}/Cargo.toml`);
    if (inHost && own) {
      const progress = (line: string, stream: "stdout" | "stderr") => {
        if (stream === "stderr" || TEST_LINE.test(line)) opts.onProgress?.(line);
      };
      const here = await inHost.run(built.executables, opts.testArgs ?? [], progress, opts.signal);
      ran = { success: here.success, stdout: here.stdout, stderr: here.problems };
      if (built.executables.some((t) => t.kind === "lib") && !opts.signal?.aborted) {
        const doc = await run(
          await cargoTestCommand(sourceDir, { ...opts, extra: ["--doc", "--no-fail-fast"] }),
          opts,
          true,
        );
        ran = {
          success: ran.success && doc.success,
          stdout: [...ran.stdout, ...doc.stdout],
          stderr: [...ran.stderr, ...doc.stderr],
        };
      }
    } else {
      await inHost?.close();
      const test = await cargoTestCommand(sourceDir, { ...opts, extra: ["--no-fail-fast"] });
      ran = await run(test, opts, true);
    }
  } finally {
    await inHost?.close();
  }
  if (opts.signal?.aborted) throw new BuildError(`cargo test was stopped for ${sourceDir}`, "");
  let passed = 0, failed = 0, ignored = 0, binaries = 0;
  for (const line of ran.stdout) {
    const m = line.match(RESULT);
    if (!m) continue;
    binaries++;
    passed += Number(m[2]);
    failed += Number(m[3]);
    ignored += Number(m[4]);
  }
  // cargo's own lines that are not progress: a runner that could not start, a binary that crashed.
  const problems = ran.stderr.filter((l) =>
    l.trim() && !/^\s*(Compiling|Finished|Blocking|Running|Fresh|Doc-tests)\b/.test(l)
  );
  const output = [...ran.stdout, ...(problems.length ? ["", ...problems] : [])].join("\n").trim();
  return {
    success: ran.success && failed === 0 && (binaries > 0 || problems.length === 0),
    passed,
    failed,
    ignored,
    output,
    warnings: diagnostics.map((d) => (d.rendered ?? d.message).trimEnd()),
    diagnostics,
  };
}

/** libtest's line for one test (`test tests::greet ... ok`) and its summary: progress worth showing. */
const TEST_LINE = /^test (.+ \.\.\. (ok|FAILED|ignored)|result: )/;

/**
 * Runs cargo in the build sandbox; its stdout and stderr lines (stderr also
 * as progress, and with `tests`, libtest's line for each test as it ends).
 */
async function run(
  command: {
    cargo: string;
    args: string[];
    env: Record<string, string>;
    toolchain: Toolchain;
    place: BuildPlace;
  },
  opts: CargoTestOptions,
  tests = false,
): Promise<{ success: boolean; stdout: string[]; stderr: string[] }> {
  const cwd = command.place.dir.path;
  const { cmd: cargo, args, env } = await jailed(
    command.cargo,
    command.args,
    command.env,
    buildSpec(command.toolchain, command.place),
  );
  let child: Deno.ChildProcess;
  try {
    child = spawnGroup(cargo, {
      args,
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }, opts.signal);
  } catch (e) {
    throw new BuildError(`cannot run ${cargo}`, e instanceof Error ? e.message : String(e));
  }
  const stdout: string[] = [];
  const stderr: string[] = [];
  const readOut = (async () => {
    for await (const line of lines(child.stdout)) {
      stdout.push(line);
      if (tests && TEST_LINE.test(line)) opts.onProgress?.(line);
    }
  })();
  const readErr = (async () => {
    const keep = unusedPatchFilter(); // cargo's note that one of our patches went unused
    for await (const line of lines(child.stderr)) {
      if (!keep(line)) continue;
      stderr.push(line);
      if (line.trim()) opts.onProgress?.(line);
    }
  })();
  const [status] = await Promise.all([child.status, readOut, readErr]);
  return { success: status.success, stdout, stderr };
}
