/**
 * The test runner (section 11): runs a Rust test binary the way libtest
 * would, but each test in its own instance, in parallel, so that a panic
 * (an abort, a trap under WASI) ends only its own test.
 *
 * Each instance gets an empty temporary world as `/`, its own host (so its
 * own `/proc`, `/self` and `/run`, and answers to `core.lock`,
 * `core.unlock`, `core.notify` and `core.log`; a call to a plugin fails),
 * the package folder preopened at its own path as its current folder, and
 * the variables cargo sets (`CARGO_*`, `RUST_*`). Its stdout lines that are
 * JSON-RPC go to its host's router; the rest is libtest's output.
 *
 * @module
 */

import { type Compiled, ComponentCache } from "../cache/component_cache.ts";
import { cacheDir } from "../paths.ts";
import type { Caller, ExitInfo } from "../processes/process.ts";
import type { Host } from "../host.ts";
import type { HostOptions } from "../host_options.ts";
import { testPool, type TestSandboxes } from "./test_pool.ts";
import { parseTestArgs, selected } from "./test_args.ts";
import { pruneTestCache, testBinary, testTranspileCache } from "./test_binary.ts";
import { listText, type OutputLine, Report, type TestOutcome, testOutput } from "./test_output.ts";

/** What {@link runTests} needs. */
export interface RunTestsOptions {
  /** The test binary cargo built (`target/…/deps/<name>-<hash>.wasm`). */
  binary: string;
  /** Its arguments as cargo passes them: libtest's, or a plain program's. */
  args: string[];
  /** The package folder: the tests' current folder, preopened at its own path. */
  packageDir: string;
  /** The runner's environment; the tests get its `CARGO_*` and `RUST_*` variables. */
  env: Record<string, string>;
  /** Where the report goes (stdout). */
  write: (text: string) => void;
  /** Where a plain program's stderr goes. */
  writeErr: (text: string) => void;
  /** The cache folder (default the user's). */
  cacheDir?: string;
  /** Sandboxes already started, which the run leaves open (default: a pool of its own). */
  sandboxes?: TestSandboxes;
  /** Opens each test instance's private host (`world_server.ts`'s `openTestHost`). */
  openHost: OpenTestHost;
}

/** A test instance's private host, and the caller its command runs as. */
export interface TestHost {
  host: Host;
  caller: Caller;
  /** Ends the caller, then the host (its processes stopped within `graceMs`). */
  close(graceMs: number): Promise<void>;
}

/**
 * Opens a {@link TestHost} on an empty world folder. Given by the user of
 * the runner, not imported: the host's own `cargo.build` runs tests here.
 */
export type OpenTestHost = (world: string, opts: HostOptions) => Promise<TestHost>;

/** The exit code of a run with a failed test, as libtest's. */
export const EXIT_TESTS_FAILED = 101;

/** The error a test gets for a call to a plugin. */
export function noPluginsMessage(method: string): string {
  return `tests have no other plugins: ${method} cannot be called from a test`;
}

/** When libtest says that a test has been running for a while. */
const SLOW_MS = 60_000;

/** How long a stopped test instance may take to end. */
const GRACE_MS = 200;

/** What an instance printed and how it ended. */
interface Ran {
  exit: ExitInfo;
  lines: OutputLine[];
}

/** Runs instances of one test binary, each on a fresh world with a host of its own. */
class Instances {
  private next = 0;

  constructor(
    private component: Compiled,
    private pool: TestSandboxes["pool"],
    private tmp: string,
    private opts: RunTestsOptions,
    private name: string,
    private cache: string,
  ) {}

  /** argv[0] of the instances: the binary's path, as cargo runs it. */
  private get program(): string {
    return this.opts.binary;
  }

  /**
   * Runs the binary with `args` to its end; `label` is what
   * `/proc/<pid>/info.json` shows as the method. Its output is collected,
   * and also handed to `live` as it comes.
   */
  async run(args: string[], label: string, live?: (line: OutputLine) => void): Promise<Ran> {
    const world = `${this.tmp}/${++this.next}`;
    await Deno.mkdir(world);
    const opened = await this.opts.openHost(world, {
      pool: this.pool,
      journalPath: ":memory:",
      watch: false,
      cacheDir: this.cache,
      noPlugins: noPluginsMessage,
      sdkDir: null,
    });
    const host = opened.host;
    const lines: OutputLine[] = [];
    try {
      const dir = this.opts.packageDir;
      const env = Object.entries(this.opts.env).filter(([k]) =>
        k.startsWith("CARGO_") || k.startsWith("RUST_")
      );
      const p = await host.supervisor.spawnCommand({
        name: this.name,
        label,
        component: this.component,
        args: [this.program, ...args],
        env: [...env, ["PWD", dir]],
        cwd: dir,
        preopens: [{ guestPath: dir, hostPath: dir }],
        caller: opened.caller,
        onOutput: (stream, line) => {
          lines.push({ stream, line });
          live?.({ stream, line });
        },
      });
      const exit = await p.ended;
      return { exit, lines };
    } finally {
      await opened.close(GRACE_MS);
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
  }

  /** The names `--list` prints (`name: test`), and whether the listing worked. */
  async list(extra: string[]): Promise<{ names: string[]; ran: Ran; ok: boolean }> {
    const ran = await this.run(["--list", "--format", "terse", ...extra], "--list");
    const out = ran.lines.filter((l) => l.stream === "stdout").map((l) => l.line);
    const names = out.flatMap((l) => l.match(/^(.*): test$/)?.[1] ?? []);
    const ok = ran.exit.status === 0 && out.every((l) => l === "" || /: (test|benchmark)$/.test(l));
    return { names, ran, ok };
  }
}

/** A plugin-style name for the pids of the tests: the package name, or `test`. */
function processName(env: Record<string, string>): string {
  const pkg = (env.CARGO_PKG_NAME ?? "").toLowerCase().replace(/[^a-z0-9_-]/g, "-");
  return pkg && pkg !== "core" ? pkg : "test";
}

/** How one test ended, from its instance. */
function outcome(name: string, ran: Ran): TestOutcome {
  const output = testOutput(name, ran.lines);
  const { exit } = ran;
  if (exit.status === 0 && !exit.trap) return { name, result: "ok", output };
  const verdict = ran.lines.some((l) =>
    l.stream === "stdout" && /(^|\.\.\. )(.*)FAILED$/.test(l.line)
  );
  const note = exit.status === "killed"
    ? `note: the test's instance was killed${exit.trap ? ` (${exit.trap})` : ""}`
    : exit.trap
    ? `note: the test's instance trapped (${exit.trap}): a panic ends only its own test`
    : verdict
    ? undefined
    : `note: the test exited with status ${exit.status}`;
  return { name, result: "failed", output, note };
}

/**
 * Runs the tests of a binary as `opts.args` asks and writes libtest's
 * report; resolves with the exit code: 0, or {@link EXIT_TESTS_FAILED}. A
 * binary without libtest's harness (a doc test, a `harness = false` test)
 * runs once as a program, its output passed through, its exit status
 * returned. Throws a `TestArgsError` for an option the runner does not support.
 */
export async function runTests(opts: RunTestsOptions): Promise<number> {
  const cache = opts.cacheDir ?? cacheDir();
  const started = performance.now();
  const own = opts.sandboxes ? null : await Deno.makeTempDir({ prefix: "sausage-test-" });
  const shared = opts.sandboxes;
  // Started first: the sandboxes start while the binary is read and prepared.
  const pool = shared?.pool ??
    testPool(own!, opts.packageDir, cache, navigator.hardwareConcurrency || 1);
  pool.warm().catch(() => {}); // a failure is the first run's
  const tmp = shared ? await Deno.makeTempDir({ dir: shared.worlds }) : own!;
  try {
    return await runOn(pool, tmp, cache, started, opts);
  } finally {
    if (!shared) pool.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    await pruneTestCache(cache).catch(() => {});
  }
}

/** {@link runTests} on `pool`, the instances' worlds made in `tmp`. */
async function runOn(
  pool: TestSandboxes["pool"],
  tmp: string,
  cache: string,
  started: number,
  opts: RunTestsOptions,
): Promise<number> {
  const binary = await testBinary(opts.binary, cache);
  const args = binary.harness ? parseTestArgs(opts.args) : null;
  const component = await new ComponentCache(testTranspileCache(cache)).load(binary.component);
  await Deno.utime(component.dir, new Date(), new Date()).catch(() => {}); // used now: pruned last
  const envThreads = Number(opts.env.RUST_TEST_THREADS);
  const threads = args?.threads ??
    (Number.isInteger(envThreads) && envThreads > 0
      ? envThreads
      : navigator.hardwareConcurrency || 1);
  const instances = new Instances(component, pool, tmp, opts, processName(opts.env), cache);
  if (!args) {
    const ran = await instances.run(opts.args, "main", ({ stream, line }) => {
      if (stream === "stdout") opts.write(line + "\n");
      else opts.writeErr(line + "\n");
    });
    if (ran.exit.trap || ran.exit.status === "killed") {
      opts.writeErr(`sausage test: ${describe(ran.exit)}\n`);
    }
    return typeof ran.exit.status === "number" && !ran.exit.trap
      ? ran.exit.status
      : EXIT_TESTS_FAILED;
  }
  const [all, ignored] = await Promise.all([instances.list([]), instances.list(["--ignored"])]);
  if (!all.ok || !ignored.ok) {
    // Not a libtest harness (`harness = false`), or it failed: show what it printed.
    const bad = all.ok ? ignored.ran : all.ran;
    opts.write(bad.lines.map((l) => l.line + "\n").join(""));
    throw new Error(
      `${opts.binary} did not list its tests (${describe(bad.exit)}): ` +
        "sausage test runs libtest harnesses only",
    );
  }
  const isIgnored = new Set(ignored.names);
  const chosen = all.names.filter((n) => selected(n, args));
  const mode = args.ignored;
  const toRun = chosen.filter((n) => mode === "include" || (mode === "only") === isIgnored.has(n));
  if (args.list) {
    opts.write(listText(mode === "only" ? toRun : chosen, args.format));
    return 0;
  }
  const skipped = mode === "skip" ? chosen.filter((n) => isIgnored.has(n)) : [];
  const report = new Report(opts.write, args.format, args.showOutput);
  report.start(toRun.length + skipped.length);
  for (const name of skipped) report.add({ name, result: "ignored", output: [] });
  const queue = [...toRun];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const argv = [name, "--exact", "--nocapture", "--test-threads=1"];
      if (isIgnored.has(name)) argv.push("--include-ignored");
      // As libtest does, say so once when a test runs for a minute.
      const slow = setTimeout(
        () => opts.write(`test ${name} has been running for over 60 seconds\n`),
        SLOW_MS,
      );
      const o = outcome(name, await instances.run(argv, name).finally(() => clearTimeout(slow)));
      if (args.nocapture) opts.write(o.output.map((l) => l + "\n").join(""));
      report.add(o);
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, Math.max(1, toRun.length)) }, worker));
  const filteredOut = all.names.length - toRun.length - skipped.length;
  const totals = report.finish(filteredOut, (performance.now() - started) / 1000);
  return totals.failed ? EXIT_TESTS_FAILED : 0;
}

function describe(exit: ExitInfo): string {
  if (exit.status === "killed") return "it was killed";
  return exit.trap ? `it trapped: ${exit.trap}` : `exit status ${exit.status}`;
}
