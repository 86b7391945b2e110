/**
 * `deno task wasi-testsuite [filters…] [--engine p1|jco] [--adapter FILE] [--suite DIR] [--jobs N]`:
 * runs WebAssembly/wasi-testsuite's `wasm32-wasip1` cases on Sausage and
 * prints a table (pass; fail with the first differing line; not applicable
 * with the reason). Fetches nothing: it reads the copy that
 * `tests/wasi_testsuite/prepare.sh` makes (`$SAUSAGE_WASI_TESTSUITE`, else
 * `<cache>/wasi-testsuite`).
 *
 * On our preview-1 binding (`--engine p1`, or `SAUSAGE_ENGINE=p1`) each
 * case's core module is run as it is, as a plugin.wasm that is a plain
 * preview-1 module would be. On jco's path (`--engine jco`, the default
 * while `SAUSAGE_ENGINE` is unset) each case is adapted into a command
 * component with jco's `componentNew` and a preview-1 command adapter (as a
 * plugin build does), transpiled by the host's component cache. Either way
 * it is run as a command through a host of its
 * own (`Supervisor.spawnCommand`, the path of `sausage test`): its `root`
 * folder copied as the world, exactly the folders its spec gives preopened
 * (its `root` as `/`, else none: `onlyPreopens`), its arguments after the
 * program name, and exactly the environment its spec gives. The suite's `wasm32-wasip3`
 * cases need WASI 0.3, which Sausage does not have: not run.
 *
 * @module
 */

import { ComponentCache, engineChoice } from "../../core/cache/component_cache.ts";
import { Host } from "../../core/host.ts";
import { WorldClient } from "../../core/control/world_client.ts";
import { defaultLimits } from "../../core/world/limits.ts";
import { cacheDir } from "../../core/paths.ts";
import type { ExitInfo } from "../../core/processes/process.ts";
import { SandboxPool } from "../../core/sandboxes/sandbox_pool.ts";
import { adaptModule, jcoAdapterPath } from "./adapt.ts";
import { type CaseSpec, type NotApplicable, parseCaseSpec } from "./case_spec.ts";

/** The suites of the prepared copy, by language. */
const SUITES = ["assemblyscript", "c", "rust"];

/** How long a case may run. */
const TIMEOUT_MS = 30_000;

/** One case of the suite. */
interface Case {
  suite: string;
  name: string;
  /** Its folder (where `root` is relative to). */
  dir: string;
  wasm: string;
  spec: CaseSpec | NotApplicable;
}

/** How a case went. */
interface Outcome {
  case: Case;
  result: "pass" | "fail" | "n/a";
  detail: string;
}

const USAGE = "usage: deno task wasi-testsuite [filters…] [--engine p1|jco] [--adapter FILE] " +
  "[--suite DIR] [--jobs N]";

function parseArgs(argv: string[]) {
  const out = {
    filters: [] as string[],
    adapter: null as string | null,
    suite: null as string | null,
    jobs: 2,
    engine: (engineChoice() === "jco" ? "jco" : "p1") as "p1" | "jco",
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === "--adapter") out.adapter = value();
    else if (a === "--engine") {
      const v = value();
      if (v !== "p1" && v !== "jco") throw new Error(`--engine is p1 or jco, not ${v}\n${USAGE}`);
      out.engine = v;
    } else if (a === "--suite") out.suite = value();
    else if (a === "--jobs") out.jobs = Math.max(1, Number(value()) || 1);
    else if (a.startsWith("-")) throw new Error(`unknown option ${a}\n${USAGE}`);
    else out.filters.push(a);
  }
  return out;
}

/** The cases of the prepared copy at `root`. */
async function findCases(root: string): Promise<Case[]> {
  const cases: Case[] = [];
  for (const suite of SUITES) {
    const dir = `${root}/tests/${suite}/testsuite/wasm32-wasip1`;
    const names: string[] = [];
    try {
      for await (const e of Deno.readDir(dir)) {
        if (e.isFile && e.name.endsWith(".wasm")) names.push(e.name.slice(0, -5));
      }
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      let json: unknown = undefined;
      try {
        json = JSON.parse(await Deno.readTextFile(`${dir}/${name}.json`));
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw new Error(`${dir}/${name}.json: ${e}`);
      }
      cases.push({ suite, name, dir, wasm: `${dir}/${name}.wasm`, spec: parseCaseSpec(json) });
    }
  }
  return cases;
}

/** Copies the folder `from` to `to` (links as links), leaving out the suite's `*.cleanup` leftovers. */
async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.name.endsWith(".cleanup")) continue;
    const a = `${from}/${e.name}`;
    const b = `${to}/${e.name}`;
    if (e.isSymlink) await Deno.symlink(await Deno.readLink(a), b);
    else if (e.isDirectory) await copyFolder(a, b);
    else await Deno.copyFile(a, b);
  }
}

/** Where `actual` first differs from the `expected` prefix, as one line; null when it starts with it. */
function firstDifference(what: string, expected: string, actual: string): string | null {
  if (actual.startsWith(expected)) return null;
  const want = expected.split("\n");
  const got = actual.split("\n");
  for (let i = 0; i < want.length; i++) {
    const last = i === want.length - 1;
    if (last ? !(got[i] ?? "").startsWith(want[i]) : got[i] !== want[i]) {
      return `${what} line ${i + 1}: expected ${JSON.stringify(want[i])}, got ${
        got[i] === undefined ? "nothing" : JSON.stringify(got[i])
      }`;
    }
  }
  return `${what} differs`;
}

function describeExit(exit: ExitInfo): string {
  if (exit.status === "killed") return "killed";
  return exit.trap ? `trapped (${exit.trap})` : `exit code ${exit.status}`;
}

/** Runs the cases on one pool of sandboxes. */
class Runner {
  private next = 0;
  private components: ComponentCache;

  constructor(
    private pool: SandboxPool,
    private tmp: string,
    private adapter: string,
    private work: string,
    private engine: "p1" | "jco",
  ) {
    this.components = new ComponentCache(
      `${work}/transpiled`,
      undefined,
      true,
      engine === "jco" ? "jco" : "auto",
    );
  }

  async run(c: Case): Promise<Outcome> {
    if ("reason" in c.spec) return { case: c, result: "n/a", detail: c.spec.reason };
    const spec = c.spec;
    let component;
    try {
      const file = this.engine === "p1"
        ? c.wasm
        : await adaptModule(c.wasm, this.adapter, `${this.work}/components`);
      component = await this.components.load(file);
      if (component.engine !== this.engine) {
        throw new Error(`ran on ${component.engine}, not ${this.engine}`);
      }
    } catch (e) {
      const lines = (e instanceof Error ? e.message : String(e)).split("\n").filter((l) =>
        l.trim()
      );
      const cause = lines.length > 1 ? ` (${lines[lines.length - 1].trim()})` : "";
      return { case: c, result: "fail", detail: `not adapted: ${lines[0] ?? ""}${cause}` };
    }
    const world = `${this.tmp}/${++this.next}`;
    if (spec.root !== null) await copyFolder(`${c.dir}/${spec.root}`, world);
    else await Deno.mkdir(world);
    const host = new Host(world, {
      pool: this.pool,
      journalPath: ":memory:",
      watch: false,
      cacheDir: this.work,
      noPlugins: (method) => `the suite's cases call no plugins (${method})`,
      sdkDir: null,
    });
    const client = WorldClient.of(host, "wasi-testsuite");
    const out: Record<"stdout" | "stderr", string[]> = { stdout: [], stderr: [] };
    try {
      const p = await host.supervisor.spawnCommand({
        name: "testsuite",
        label: c.name,
        component,
        args: [`${c.name}.wasm`, ...spec.args],
        env: Object.entries(spec.env),
        exactEnv: true,
        // Exactly the case's folders, as the suite's runners give them: its
        // `root` at `/` (fd 3), else none (`sock_shutdown-invalid_fd` needs fd 3 closed).
        preopens: spec.root === null ? [] : [{ guestPath: "/", hostPath: world }],
        onlyPreopens: true,
        caller: client.caller,
        onOutput: (stream, line) => out[stream].push(line),
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exit = await Promise.race([
        p.ended,
        new Promise<null>((r) => (timer = setTimeout(() => r(null), TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      if (exit === null) {
        host.supervisor.kill(p);
        return { case: c, result: "fail", detail: `still running after ${TIMEOUT_MS / 1000} s` };
      }
      const stdout = out.stdout.map((l) => l + "\n").join("");
      const stderr = out.stderr.map((l) => l + "\n").join("");
      const problems = [
        exit.status !== spec.exitCode || exit.trap
          ? `${describeExit(exit)}, expected exit code ${spec.exitCode}${
            out.stderr.length ? `; stderr: ${stderrGist(out.stderr)}` : ""
          }`
          : null,
        firstDifference("stdout", spec.stdout, stdout),
        firstDifference("stderr", spec.stderr, stderr),
      ].filter((x): x is string => x !== null);
      return problems.length === 0
        ? { case: c, result: "pass", detail: "" }
        : { case: c, result: "fail", detail: problems[0] };
    } finally {
      await client.close();
      await host.shutdown(200);
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
  }
}

/** The first line of stderr, and the next one too after Rust's `panicked at` line (the message). */
function stderrGist(lines: string[]): string {
  const text = lines.filter((l) => l.trim() !== "");
  const first = text[0] ?? "";
  return / panicked at /.test(first) && text[1] ? `${first} ${text[1]}` : first;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0];
}

/** The table of outcomes, one row per case. */
function table(outcomes: Outcome[]): string {
  const rows = outcomes.map((o) => [`${o.case.suite}/${o.case.name}`, o.result, o.detail]);
  const head = ["case", "result", "detail"];
  const width = [0, 1].map((i) => Math.max(head[i].length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    `| ${r[0].padEnd(width[0])} | ${r[1].padEnd(width[1])} | ${r[2].replaceAll("|", "\\|")} |`;
  return [
    line(head),
    `| ${"-".repeat(width[0])} | ${"-".repeat(width[1])} | --- |`,
    ...rows.map(line),
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    console.error(firstLine(e));
    return 2;
  }
  const cache = cacheDir();
  const suite = opts.suite ?? Deno.env.get("SAUSAGE_WASI_TESTSUITE") ?? `${cache}/wasi-testsuite`;
  const all = await findCases(suite);
  if (all.length === 0) {
    console.error(
      `no wasi-testsuite cases in ${suite}: prepare a copy first with ` +
        "tests/wasi_testsuite/prepare.sh (it clones WebAssembly/wasi-testsuite, branch " +
        "prod/testsuite-base, or copies from a clone you name)",
    );
    return 2;
  }
  const cases = all.filter((c) =>
    opts.filters.length === 0 ||
    opts.filters.some((f) => c.name.includes(f) || `${c.suite}/${c.name}`.includes(f))
  );
  const adapter = opts.adapter ?? await jcoAdapterPath();
  const work = `${cache}/wasi-testsuite-work`;
  const tmp = await Deno.makeTempDir({ prefix: "sausage-wasi-testsuite-" });
  const limits = defaultLimits();
  const pool = new SandboxPool(
    { world: tmp, cache: work, stallMs: limits.stall_ms, maxLine: limits.line_mib * 2 ** 20 },
    Math.min(opts.jobs, navigator.hardwareConcurrency || 1),
  );
  const started = performance.now();
  const outcomes: Outcome[] = [];
  try {
    pool.warm();
    const runner = new Runner(pool, tmp, adapter, work, opts.engine);
    const queue = [...cases];
    const worker = async () => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
        outcomes.push(await runner.run(c));
      }
    };
    await Promise.all(Array.from({ length: opts.jobs }, worker));
  } finally {
    pool.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  const order = new Map(cases.map((c, i) => [c, i]));
  outcomes.sort((a, b) => order.get(a.case)! - order.get(b.case)!);
  const count = (r: Outcome["result"]) => outcomes.filter((o) => o.result === r).length;
  let commit = "";
  try {
    commit = (await Deno.readTextFile(`${suite}/COMMIT`)).trim().slice(0, 12);
  } catch { /* a copy made by hand */ }
  console.log(table(outcomes));
  console.log(
    `\nwasi-testsuite${commit ? ` ${commit}` : ""}, wasm32-wasip1, ${
      opts.engine === "p1"
        ? "our preview-1 binding on the modules as they are"
        : `adapter ${adapter}`
    }: ` +
      `pass ${count("pass")} of ${outcomes.length}, fail ${count("fail")}, ` +
      `not applicable ${count("n/a")} (${((performance.now() - started) / 1000).toFixed(1)} s). ` +
      "The wasm32-wasip3 cases need WASI 0.3: not run.",
  );
  return count("fail") === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
