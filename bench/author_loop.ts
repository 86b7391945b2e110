/**
 * Benchmark: the plugin author's loop (issue 26), through `./sausage` as a
 * person runs it, on the template plugin `hello`:
 *
 * - an edit saved while `sausage dev` runs, to the answer of a call that
 *   shows it (warm cache; target ≤ 5 s), split into dev's round (tests,
 *   build, activation) and the rest;
 * - the template's tests as libtest reports them in that round ("finished
 *   in", each test in its own instance; target ≤ 1 s);
 * - with `--cold`: from an empty cache (`XDG_CACHE_HOME` a new folder) to a
 *   first active plugin: `new`, `cargo test`, `build`, `call` (target
 *   ≤ 5 minutes; std is built once, into the sysroot).
 *
 *   node_modules/.bin/deno run -A bench/author_loop.ts [--edits N] [--world W] [--cold]
 *
 * (`--world`: a world made by an earlier run, whose hello is built: skips the first build.)
 *
 * Prints each figure and the load (`uptime`): on a shared machine read them
 * as ranges.
 *
 * @module
 */

const LAUNCHER = decodeURIComponent(new URL("../sausage", import.meta.url).pathname);
const edits = Number(Deno.args[Deno.args.indexOf("--edits") + 1]) || 3;
const dec = new TextDecoder();

function load(): string {
  return dec.decode(new Deno.Command("uptime").outputSync().stdout).trim().replace(
    /.*load/,
    "load",
  );
}

/** Runs `sausage <args>` to its end; throws when it fails. */
async function sausage(env: Record<string, string>, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(LAUNCHER, { args, env, stdout: "piped", stderr: "piped" })
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

/** The warm loop: edits under `sausage dev`, each to the answer that shows it. */
async function warm(): Promise<void> {
  const given = Deno.args.includes("--world") ? Deno.args[Deno.args.indexOf("--world") + 1] : "";
  const world = given || `${await Deno.makeTempDir({ prefix: "sausage-bench-" })}/w`;
  const main = `${world}/plugins/hello/source/src/main.rs`;
  let t0 = performance.now();
  if (!given) {
    await sausage({}, "new", world);
    t0 = performance.now();
    await sausage({}, "build", world, "hello");
    console.log(`first build in a new world (std already built): ${since(t0)} s`);
  }
  console.log(`world: ${world}`);

  const dev = new Deno.Command(LAUNCHER, {
    args: ["dev", world],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let text = "";
  const reading = (async () => {
    for await (const chunk of dev.stderr) text += dec.decode(chunk);
  })();
  const waitFor = async (pattern: RegExp, from: number) => {
    const end = Date.now() + 600_000;
    while (!pattern.test(text.slice(from))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}:\n${text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return text.slice(from).match(pattern)!;
  };
  try {
    await waitFor(/watching the source of hello/, 0);
    const rows: string[] = [];
    let source = await Deno.readTextFile(main);
    const tag = crypto.randomUUID().slice(0, 6).replace(/[^a-z]/g, "x");
    for (let i = 1; i <= edits; i++) {
      const before = source.match(/Hello, |Hi\w+, /)?.[0] ?? "?";
      const greeting = `Hi${tag}${i}, `; // new text each run: no test binary seen before
      const next = source.replaceAll(/Hello, |Hi\w+, /g, greeting); // the code and its test
      const mark = text.length;
      t0 = performance.now();
      await Deno.writeTextFile(main, next);
      source = next;
      await waitFor(/hello is active|was not built|not activated/, mark);
      const round = since(t0);
      const tests = text.slice(mark).match(/finished in ([\d.]+)s/)?.[1] ?? "?";
      // The answer: a call that shows the edit.
      for (;;) {
        const out = await sausage({}, "call", world, "hello.greet", '{"name": "Ada"}');
        if (out.includes(`${greeting}Ada`)) break;
      }
      rows.push(
        `edit ${i} (${before.trim()} -> ${greeting.trim()}): answer after ${since(t0)} s ` +
          `(dev's round ${round} s; libtest: finished in ${tests} s)`,
      );
    }
    for (const r of rows) console.log(r);
    const names = text.match(/^\s*test tests::\S+ \.\.\. ok$/gm) ?? [];
    console.log(`dev showed ${names.length} test lines, e.g. ${names[0]?.trim() ?? "none"}`);
  } finally {
    dev.kill("SIGINT");
    await dev.status;
    await reading;
  }
}

/** From an empty cache to a first active plugin. */
async function cold(): Promise<void> {
  const cache = await Deno.makeTempDir({ prefix: "sausage-bench-cache-" });
  const env = { XDG_CACHE_HOME: cache };
  const world = `${await Deno.makeTempDir({ prefix: "sausage-bench-" })}/w`;
  const t0 = performance.now();
  await sausage(env, "new", world);
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
  const tested = since(t1);
  const t2 = performance.now();
  await sausage(env, "build", world, "hello");
  const built = since(t2);
  const t3 = performance.now();
  await sausage(env, "call", world, "hello.greet", '{"name": "Ada"}');
  console.log(
    `empty cache to a first active plugin: ${
      since(t0)
    } s (new ${made} s, cargo test ${tested} s, ` +
      `build ${built} s, call ${since(t3)} s)`,
  );
  await Deno.remove(cache, { recursive: true }).catch(() => {});
}

console.log(`author's loop, ${load()}`);
await warm();
if (Deno.args.includes("--cold")) await cold();
console.log(`done, ${load()}`);
