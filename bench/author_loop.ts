/**
 * Benchmark: the plugin author's loop (issue 26), through `./sausage` as a
 * person runs it, on the template plugin `hello`:
 *
 * - an edit saved while `sausage dev` runs, to the answer of a call that
 *   shows it (warm cache; target ≤ 5 s), split into dev's round (tests,
 *   build, activation) and the rest;
 * - the template's tests as libtest reports them in that round ("finished
 *   in", each test in its own instance; target ≤ 1 s);
 * - with `--cold` (`--cold-only`: without the edits): from an empty cache
 *   (`XDG_CACHE_HOME` a new folder) to a first active plugin: `new`,
 *   `cargo test`, `build`, `call` (target ≤ 3 minutes quiet; std is built
 *   once, into the sysroot), and how many times cargo compiled each crate
 *   (once per profile: `cargo test` and `build` share the world's folder).
 *
 *   node_modules/.bin/deno run -A bench/author_loop.ts [--edits N] [--world W] [--cold]
 *   node_modules/.bin/deno run -A bench/author_loop.ts --compare <checkout> [--world-a W]
 *     [--world-b W] [--rounds R] [--edits N]
 *
 * (`--log F`: dev's stderr into F, each line with the seconds since its session began.
 * `--world`: a world made by an earlier run, whose hello is built: skips the
 * first build. `--compare`: another checkout's launcher (A) against this one
 * (B), sessions alternated so both see the same load; each on its own world.
 * Each `dev` session's first edit is not counted: it loads the toolchain's
 * facts and the runner's code once. A checkout for A made with `git worktree add` and a linked
 * `node_modules`: touch its `package-lock.json` older than the linked
 * `node_modules/.package-lock.json` first, or its launcher runs `npm ci` into the shared folder.)
 *
 * Prints each figure and the load (`uptime`): on a shared machine read them
 * as ranges.
 *
 * @module
 */

const LAUNCHER = decodeURIComponent(new URL("../sausage", import.meta.url).pathname);
const edits = Number(Deno.args[Deno.args.indexOf("--edits") + 1]) || 10;
const dec = new TextDecoder();

function load(): string {
  return dec.decode(new Deno.Command("uptime").outputSync().stdout).trim().replace(
    /.*load/,
    "load",
  );
}

/** Runs `<launcher> <args>` to its end; throws when it fails. */
async function sausage(
  launcher: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<string> {
  const out = await new Deno.Command(launcher, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`sausage ${args.join(" ")} failed:\n${dec.decode(out.stderr)}`);
  }
  return dec.decode(out.stdout);
}

/** Seconds since `t0` (a `performance.now()`), to a tenth. */
function since(t0: number): number {
  return Number(((performance.now() - t0) / 1000).toFixed(1));
}

/** One edit's figures. */
interface Edit {
  /** Seconds from the save to the answer that shows it. */
  answer: number;
  /** Seconds from the save to dev's "hello is active". */
  round: number;
  /** libtest's "finished in" for the template's tests, in seconds (NaN when not seen). */
  tests: number;
}

/**
 * A `sausage dev` session of the launcher `launcher` on `world`: `edits`
 * edits, each to the answer that shows it, after one edit that is not
 * counted (the host's first build loads the toolchain's facts and the
 * runner's code once). Resolves with the counted edits and dev's stderr.
 */
async function session(
  launcher: string,
  world: string,
  edits: number,
): Promise<{ rows: Edit[]; text: string }> {
  const main = `${world}/plugins/hello/source/src/main.rs`;
  const dev = new Deno.Command(launcher, {
    args: ["dev", world],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let text = "";
  const began = performance.now();
  const log = arg("--log");
  const reading = (async () => {
    for await (const chunk of dev.stderr) {
      const got = dec.decode(chunk);
      text += got;
      // With `--log`: dev's lines, each with the seconds since the session began.
      const at = ((performance.now() - began) / 1000).toFixed(2);
      if (log) await Deno.writeTextFile(log, got.replace(/^(?=.)/gm, `${at} `), { append: true });
    }
  })();
  const waitFor = async (pattern: RegExp, from: number) => {
    const end = Date.now() + 600_000;
    while (!pattern.test(text.slice(from))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}:\n${text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return text.slice(from).match(pattern)!;
  };
  const rows: Edit[] = [];
  try {
    await waitFor(/watching the source of hello/, 0);
    let source = await Deno.readTextFile(main);
    const tag = crypto.randomUUID().slice(0, 6).replace(/[^a-z]/g, "x");
    for (let i = 0; i <= edits; i++) {
      const greeting = `Hi${tag}${i}, `; // new text each time: no test binary seen before
      const next = source.replaceAll(/Hello, |Hi\w+, /g, greeting); // the code and its test
      const mark = text.length;
      const t0 = performance.now();
      if (log) {
        const at = ((t0 - began) / 1000).toFixed(2);
        await Deno.writeTextFile(log, `${at} [bench] saved ${greeting}\n`, { append: true });
      }
      await Deno.writeTextFile(main, next);
      source = next;
      await waitFor(/hello is active|was not built|not activated/, mark);
      const round = since(t0);
      const tests = Number(text.slice(mark).match(/finished in ([\d.]+)s/)?.[1] ?? NaN);
      // The answer: a call that shows the edit.
      for (;;) {
        const out = await sausage(launcher, {}, "call", world, "hello.greet", '{"name": "Ada"}');
        if (out.includes(`${greeting}Ada`)) break;
      }
      if (i > 0) rows.push({ answer: since(t0), round, tests });
    }
  } finally {
    dev.kill("SIGINT");
    await dev.status;
    await reading;
  }
  return { rows, text };
}

/** "min-max (mean m)" of some seconds. */
function range(xs: number[]): string {
  const ok = xs.filter((x) => !Number.isNaN(x));
  if (!ok.length) return "?";
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  return `${Math.min(...ok)}-${Math.max(...ok)} s (mean ${mean.toFixed(1)} s, n ${ok.length})`;
}

/** Prints a session's rows and its totals. */
function report(label: string, rows: Edit[]): void {
  for (const r of rows) {
    console.log(
      `${label}: answer after ${r.answer} s (dev's round ${r.round} s; libtest: finished in ${r.tests} s)`,
    );
  }
}

/** A new world whose hello is built, by `launcher`. */
async function newWorld(launcher: string): Promise<string> {
  const world = `${await Deno.makeTempDir({ prefix: "sausage-bench-" })}/w`;
  await sausage(launcher, {}, "new", world);
  const t0 = performance.now();
  await sausage(launcher, {}, "build", world, "hello");
  console.log(`first build in a new world (std already built): ${since(t0)} s`);
  return world;
}

/** The value after `flag` in the arguments, or "". */
function arg(flag: string): string {
  return Deno.args.includes(flag) ? Deno.args[Deno.args.indexOf(flag) + 1] : "";
}

/** The warm loop: edits under `sausage dev`, each to the answer that shows it. */
async function warm(): Promise<void> {
  const world = arg("--world") || await newWorld(LAUNCHER);
  console.log(`world: ${world}`);
  const { rows, text } = await session(LAUNCHER, world, edits);
  report("edit", rows);
  console.log(
    `answer ${range(rows.map((r) => r.answer))}; tests ${range(rows.map((r) => r.tests))}`,
  );
  const names = text.match(/^\s*test tests::\S+ \.\.\. ok$/gm) ?? [];
  console.log(`dev showed ${names.length} test lines, e.g. ${names[0]?.trim() ?? "none"}`);
}

/**
 * A against B in one run: sessions of another checkout's launcher (A, on
 * its own world) and of this one (B), alternated `--rounds` times, each
 * with `--edits` counted edits, so both see the same load.
 */
async function compare(): Promise<void> {
  const a = {
    launcher: `${arg("--compare")}/sausage`,
    world: arg("--world-a"),
    rows: [] as Edit[],
  };
  const b = { launcher: LAUNCHER, world: arg("--world-b"), rows: [] as Edit[] };
  for (const v of [a, b]) v.world ||= await newWorld(v.launcher);
  console.log(`A: ${a.launcher} on ${a.world}\nB: ${b.launcher} on ${b.world}`);
  const rounds = Number(arg("--rounds")) || 2;
  for (let r = 1; r <= rounds; r++) {
    for (const [label, v] of [["A", a], ["B", b]] as const) {
      const before = load();
      const { rows } = await session(v.launcher, v.world, edits);
      report(`${label} round ${r} (${before})`, rows);
      v.rows.push(...rows);
    }
  }
  for (const [label, v] of [["A", a], ["B", b]] as const) {
    console.log(
      `${label}: answer ${range(v.rows.map((r) => r.answer))}; dev's round ${
        range(v.rows.map((r) => r.round))
      }; tests ${range(v.rows.map((r) => r.tests))}`,
    );
  }
}

/** From an empty cache to a first active plugin. */
async function cold(): Promise<void> {
  const cache = await Deno.makeTempDir({ prefix: "sausage-bench-cache-" });
  const env = { XDG_CACHE_HOME: cache };
  const world = `${await Deno.makeTempDir({ prefix: "sausage-bench-" })}/w`;
  const t0 = performance.now();
  await sausage(LAUNCHER, env, "new", world);
  const made = since(t0);
  const t1 = performance.now();
  const test = await new Deno.Command("cargo", {
    args: ["test"],
    cwd: `${world}/plugins/hello/source`,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!test.success) throw new Error(`cargo test failed:\n${dec.decode(test.stderr)}`);
  const testLines = dec.decode(test.stderr);
  const tested = since(t1);
  const t2 = performance.now();
  const buildLines = await sausageErr(LAUNCHER, env, "build", world, "hello");
  const built = since(t2);
  const t3 = performance.now();
  await sausage(LAUNCHER, env, "call", world, "hello.greet", '{"name": "Ada"}');
  console.log(
    `empty cache to a first active plugin: ${
      since(t0)
    } s (new ${made} s, cargo test ${tested} s, ` +
      `build ${built} s, call ${since(t3)} s)`,
  );
  const count = (text: string) => text.match(/^\s*Compiling serde v/gm)?.length ?? 0;
  console.log(
    `"Compiling serde" lines: cargo test ${count(testLines)}, build ${count(buildLines)} ` +
      "(once per profile: the tests' and the release)",
  );
  await Deno.remove(cache, { recursive: true }).catch(() => {});
}

/** Runs `<launcher> <args>` to its end; resolves with its stderr, throws when it fails. */
async function sausageErr(
  launcher: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<string> {
  const out = await new Deno.Command(launcher, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`sausage ${args.join(" ")} failed:\n${dec.decode(out.stderr)}`);
  return dec.decode(out.stderr);
}

console.log(`author's loop, ${load()}`);
if (Deno.args.includes("--compare")) await compare();
else if (!Deno.args.includes("--cold-only")) await warm();
if (Deno.args.includes("--cold") || Deno.args.includes("--cold-only")) await cold();
console.log(`done, ${load()}`);
