/**
 * The test binaries that `cargo test --no-run` built, run by the test
 * runner in this process rather than by a second `cargo test` that starts
 * `sausage test` once per binary: each test still runs in its own instance
 * (`runTests`), but without cargo's second start, a new Deno process per
 * binary and new sandboxes (together 2-4 s of the template's 3-5 s of
 * tests under load). The sandboxes start while cargo compiles
 * ({@link HostTests.start}); the output is what cargo would print: its
 * `Running` line for each binary on the progress, libtest's report of each.
 *
 * The tests see the variables cargo gives a test at run time that say which
 * package and target they are (`CARGO_MANIFEST_DIR`, `CARGO_MANIFEST_PATH`,
 * `CARGO_PKG_NAME`, `CARGO_PKG_VERSION` and its parts, `CARGO_CRATE_NAME`,
 * `CARGO_PRIMARY_PACKAGE`); `env!` sees all of cargo's at compile time.
 * Doc tests are rustdoc's to build: `cargo test --doc` runs them
 * (`test_run.ts`).
 *
 * @module
 */

import { EXIT_TESTS_FAILED, type OpenTestHost, runTests } from "../test_runner/test_runner.ts";
import {
  type StartedSandboxes,
  startTestSandboxes,
  type TestSandboxes,
} from "../test_runner/test_pool.ts";
import { cacheDir } from "../paths.ts";
import { relativeTo } from "../../vfs/confined_dir.ts";

/** A test binary that `cargo test --no-run` built, as its JSON message describes it. */
export interface BuiltTest {
  /** The target's name (`rawtests`, `integration`). */
  name: string;
  /** Its kind (`lib`, `bin`, `test`). */
  kind: string;
  /** The `.wasm` file. */
  path: string;
  /** The target's root source file (`…/src/lib.rs`). */
  src: string;
  /** Its package's `Cargo.toml`. */
  manifest: string;
  /** Its package's name and version, from the package id (`path+file:///…#name@1.0.0`). */
  pkg: { name: string; version: string };
}

/** The order cargo runs test binaries in: by kind, then by name. */
const KIND_ORDER = ["lib", "bin", "test", "bench", "example"];

/** What {@link HostTests.run} saw. */
export interface HostTestsRun {
  /** libtest's reports, line by line, as cargo's stdout would have them. */
  stdout: string[];
  /** cargo's lines for a binary that could not run or failed as a plain program. */
  problems: string[];
  /** True when every binary ran and no test failed. */
  success: boolean;
}

/** The package's name and version in a package id (both forms cargo writes). */
export function packageOf(id: string): { name: string; version: string } {
  const spec = id.match(/#(?:([^@]+)@)?([^#@]+)$/);
  if (spec) {
    const name = spec[1] ?? id.slice(0, id.indexOf("#")).replace(/.*\//, "");
    return { name, version: spec[2] };
  }
  const old = id.match(/^(\S+) (\S+) /); // `name 1.0.0 (path+file:///…)`, before cargo 1.77
  return old ? { name: old[1], version: old[2] } : { name: "", version: "" };
}

/** The variables cargo sets for a test at run time, as far as {@link BuiltTest} says them. */
export function testEnv(t: BuiltTest): Record<string, string> {
  const [version, pre = ""] = t.pkg.version.split(/-(.*)/s);
  const [major = "", minor = "", patch = ""] = version.split(".");
  return {
    CARGO_MANIFEST_DIR: t.manifest.replace(/\/[^/]*$/, ""),
    CARGO_MANIFEST_PATH: t.manifest,
    CARGO_PKG_NAME: t.pkg.name,
    CARGO_PKG_VERSION: t.pkg.version,
    CARGO_PKG_VERSION_MAJOR: major,
    CARGO_PKG_VERSION_MINOR: minor,
    CARGO_PKG_VERSION_PATCH: patch,
    CARGO_PKG_VERSION_PRE: pre,
    CARGO_CRATE_NAME: t.name.replaceAll("-", "_"),
    CARGO_PRIMARY_PACKAGE: "1",
  };
}

/** cargo's line before a test binary runs (`Running unittests src/lib.rs (…/rawtests-….wasm)`). */
export function runningLine(t: BuiltTest): string {
  const dir = t.manifest.replace(/\/[^/]*$/, "");
  const src = relativeTo(dir, t.src) ?? t.src;
  const what = t.kind === "lib" || t.kind === "bin" ? `unittests ${src}` : src;
  return `     Running ${what} (${t.path})`;
}

/** The tests of one crate, run in this process on sandboxes started before they compile. */
export class HostTests {
  private started: StartedSandboxes;
  private sandboxes: Promise<TestSandboxes>;

  private constructor(
    packageDir: string,
    private openHost: OpenTestHost,
    private cache: string,
  ) {
    this.started = startTestSandboxes(packageDir, cache);
    this.sandboxes = this.started.sandboxes;
  }

  /**
   * Starts the sandboxes for the tests of the package at `packageDir`. The
   * runner keeps what it makes of the binaries under `cache`, a folder of
   * its own that only the host writes (not the build jail's runner cache)
   * and that is all of the cache the sandboxes may read.
   */
  static start(
    packageDir: string,
    openHost: OpenTestHost,
    cache = `${cacheDir()}/host-tests`,
  ): HostTests {
    return new HostTests(packageDir, openHost, cache);
  }

  /**
   * Runs `built` in cargo's order with libtest's `args`, each binary as
   * `sausage test` would, and says each `Running` line and each test's line
   * as it ends to `onLine` (stdout lines are libtest's).
   */
  async run(
    built: BuiltTest[],
    args: string[],
    onLine: (line: string, stream: "stdout" | "stderr") => void,
    signal?: AbortSignal,
  ): Promise<HostTestsRun> {
    const sandboxes = await this.sandboxes;
    // Stopping the sandboxes ends the instances, and so the runs.
    const stop = () => sandboxes.pool.close();
    signal?.addEventListener("abort", stop);
    try {
      return await this.runAll(built, args, onLine, sandboxes, signal);
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  }

  private async runAll(
    built: BuiltTest[],
    args: string[],
    onLine: (line: string, stream: "stdout" | "stderr") => void,
    sandboxes: TestSandboxes,
    signal?: AbortSignal,
  ): Promise<HostTestsRun> {
    const stdout: string[] = [];
    const problems: string[] = [];
    let success = true;
    const ordered = [...built].sort((a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.name.localeCompare(b.name)
    );
    for (const t of ordered) {
      if (signal?.aborted) break;
      onLine(runningLine(t), "stderr");
      let reported = false;
      const out = new LineBuffer((line) => {
        stdout.push(line);
        reported ||= line.startsWith("test result: ");
        onLine(line, "stdout");
      });
      const err = new LineBuffer((line) => onLine(line, "stderr"));
      let code: number;
      try {
        code = await runTests({
          binary: t.path,
          args,
          packageDir: t.manifest.replace(/\/[^/]*$/, ""),
          env: testEnv(t),
          write: (text) => out.write(text),
          writeErr: (text) => err.write(text),
          cacheDir: this.cache,
          sandboxes,
          openHost: this.openHost,
        });
      } catch (e) {
        code = -1;
        problems.push(`error: ${t.path}: ${e instanceof Error ? e.message : e}`);
      }
      out.end();
      err.end();
      if (code === 0) continue;
      success = false;
      if (code !== EXIT_TESTS_FAILED || !reported) {
        const flag = t.kind === "lib" ? "--lib" : `--${t.kind} ${t.name}`;
        problems.push(`error: test failed, to rerun pass \`${flag}\``);
      }
    }
    return { stdout, problems, success };
  }

  /** Stops the sandboxes and removes the tests' worlds. */
  close(): Promise<void> {
    return this.started.close();
  }
}

/** Text written in pieces, handed on line by line. */
class LineBuffer {
  private rest = "";
  constructor(private onLine: (line: string) => void) {}

  write(text: string): void {
    const parts = (this.rest + text).split("\n");
    this.rest = parts.pop()!;
    for (const line of parts) this.onLine(line);
  }

  end(): void {
    if (this.rest) this.onLine(this.rest);
    this.rest = "";
  }
}
