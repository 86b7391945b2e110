/**
 * The one file (`dist/sausage`, `scripts/dist.ts`), as a new user has it:
 * built once per run, copied alone into an empty folder, run with an empty
 * `HOME` and `XDG_CACHE_HOME` and a `PATH` without node, npm, deno or this
 * checkout. With that file alone: `new`, `cargo test` in the plugin's folder
 * (the file as cargo's runner, `sausage test`), `build`, `call`, `run
 * --headless` with `ps`, `log` and `mcp` against it, and the sandboxes'
 * narrow permissions read from their command lines. Then the unpack itself:
 * two first starts at once, a damaged unpack redone, a damaged file refused.
 *
 * Slow: the empty cache means std is built for the world's cargo (and again
 * for the host's builds), minutes on a loaded machine.
 *
 * @module
 */

import { spawnCollecting } from "./helpers/author.ts";
import { strict as assert } from "node:assert";
import pkg from "../package.json" with { type: "json" };
import config from "../deno.json" with { type: "json" };

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const DENO = `${ROOT}/node_modules/.bin/deno`;
/** Programs a new user's machine does not have. */
const NOT_ON_PATH = new Set(["node", "nodejs", "npm", "npx", "corepack", "deno"]);

/** `dist/sausage`, built once per run (the packed form: no denort here). */
let built: Promise<string> | undefined;
function buildDist(): Promise<string> {
  built ??= (async () => {
    const out = await new Deno.Command(DENO, {
      args: ["run", "--allow-all", "scripts/dist.ts", "--form=packed"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.ok(out.success, `scripts/dist.ts failed:\n${text}`);
    assert.match(
      text,
      /dist: wrote .*dist\/sausage \([\d.]+ MiB, packed, archive sha256 [0-9a-f]{64}\)/,
    );
    return `${ROOT}/dist/sausage`;
  })();
  return built;
}

/** A new user's machine: the file alone in an empty folder, empty home and cache, a bare PATH. */
interface Machine {
  tmp: string;
  /** The PATH's one folder (under /opt): removed with the machine. */
  bin: string;
  /** The copy of `dist/sausage`. */
  exe: string;
  home: string;
  cache: string;
  /** An empty folder to work in. */
  work: string;
  env: Record<string, string>;
}

async function machine(): Promise<Machine> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "sausage-dist-test-" }));
  const [app, home, cache, work] = ["app", "home", "cache", "work"].map((d) => `${tmp}/${d}`);
  for (const d of [app, home, cache, work]) await Deno.mkdir(d);
  await Deno.copyFile(await buildDist(), `${app}/sausage`);
  await Deno.chmod(`${app}/sausage`, 0o755);
  // The system's programs, without node, npm and deno (they are in /usr/bin
  // here), in a folder under /opt: the build sandbox shows the system's
  // folders (/usr, /opt, ...) but not /tmp, and cargo there runs `cc` from PATH.
  const bin = await Deno.makeTempDir({ dir: "/opt", prefix: "sausage-dist-test-bin-" });
  for (const dir of ["/usr/bin", "/usr/sbin"]) {
    for await (const e of Deno.readDir(dir)) {
      if (NOT_ON_PATH.has(e.name)) continue;
      await Deno.symlink(`${dir}/${e.name}`, `${bin}/${e.name}`).catch(() => {});
    }
  }
  const env = { HOME: home, XDG_CACHE_HOME: cache, PATH: bin, LANG: "C.UTF-8" };
  return { tmp, bin, exe: `${app}/sausage`, home, cache, work, env };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` on the machine `m` (its environment only), in `cwd` (default its work folder). */
async function on(m: Machine, cmd: string, args: string[], cwd = m.work): Promise<Ran> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: m.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

function includes(text: string, part: string, what = ""): void {
  assert.ok(
    text.includes(part),
    `${what ? `${what}: ` : ""}${JSON.stringify(part)} not in:\n${text}`,
  );
}

function ok(r: Ran, what: string): void {
  assert.deepEqual(r.code, 0, `${what} exited with ${r.code}:\n${r.stdout}\n${r.stderr}`);
}

/** The unpack folders in the machine's cache. */
async function unpacks(m: Machine): Promise<string[]> {
  const dir = `${m.cache}/sausage/dist`;
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

/** Polls `check` until it is true. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms: number) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The command lines of the processes whose command line contains `needle`. */
async function commandLines(needle: string): Promise<string[][]> {
  const found: string[][] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const args = (await Deno.readTextFile(`/proc/${e.name}/cmdline`)).split("\0");
      if (args.some((a) => a.includes(needle))) found.push(args.filter(Boolean));
    } catch { /* ended */ }
  }
  return found;
}

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name:
    "dist/sausage alone (empty HOME and cache, no node/npm/deno on PATH): new, cargo test, build, call, run with ps, log and mcp, test as cargo's runner; sandboxes keep narrow permissions",
  ...opts,
}, async (t) => {
  const m = await machine();
  const timings: string[] = [];
  const timed = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await f();
    } finally {
      timings.push(`${what}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
  };
  try {
    for (const name of NOT_ON_PATH) {
      const which = await on(m, "bash", ["-c", `command -v ${name} || echo none`]);
      assert.deepEqual(which.stdout.trim(), "none", `${name} is on the test's PATH`);
    }

    await t.step(
      "--version: unpacks on the first start only; Sausage's, Deno's, jco's versions",
      async () => {
        const first = await timed("first --version", () => on(m, m.exe, ["--version"]));
        ok(first, "sausage --version");
        assert.match(
          first.stderr,
          /first start of this version: unpacking into .*\/sausage\/dist\/[0-9a-f]{64}/,
        );
        const [hash] = await unpacks(m);
        const lines = first.stdout.trim().split("\n");
        assert.deepEqual(lines, [
          `sausage ${pkg.version} (one file, archive ${hash.slice(0, 12)})`,
          `deno ${pkg.dependencies.deno}`,
          `jco ${config.imports["@bytecodealliance/jco"].split("@").pop()}`,
        ]);
        const second = await timed("second --version", () => on(m, m.exe, ["--version"]));
        ok(second, "sausage --version (again)");
        assert.deepEqual(second.stdout, first.stdout);
        assert.deepEqual(second.stderr, "");
        assert.deepEqual(await unpacks(m), [hash]);
      },
    );

    const world = `${m.work}/w`;
    await t.step(
      "new w: the world, hello, and .cargo/config.toml naming the file as cargo's runner",
      async () => {
        const made = await timed("new w (std for cargo built)", () => on(m, m.exe, ["new", "w"]));
        ok(made, "sausage new w");
        includes(made.stdout, "made the world w: it holds the plugin hello");
        // std's build (shown as it goes) has no patch of ours to leave unused.
        assert.doesNotMatch(made.stderr, /was not used in the crate graph/, made.stderr);
        const cargoConfig = await Deno.readTextFile(`${world}/.cargo/config.toml`);
        includes(cargoConfig, `runner = ${JSON.stringify(`${m.exe} test`)}`);
        // The SDK the plugin depends on is the world's copy (the one cargo.build uses too) of
        // the SDK the file carries (unpacked in the cache).
        const [hash] = await unpacks(m);
        const copy = `${world}/plugins/cargo/sdk/sausage-plugin`;
        includes(cargoConfig, `sausage-plugin = { path = ${JSON.stringify(copy)} }`);
        assert.equal(
          await Deno.readTextFile(`${copy}/src/lib.rs`),
          await Deno.readTextFile(`${m.cache}/sausage/dist/${hash}/sdk/sausage-plugin/src/lib.rs`),
        );
      },
    );

    const source = `${world}/plugins/hello/source`;
    await t.step(
      "cargo test in the plugin's folder runs the tests through `sausage test` of the file",
      async () => {
        const tested = await timed("cargo test", () => on(m, "cargo", ["test", "-v"], source));
        ok(tested, "cargo test");
        assert.match(tested.stdout, /test result: ok\. [1-9]\d* passed; 0 failed/);
        // cargo -v shows each test binary run by the runner: the file itself.
        includes(tested.stderr, `Running \`${m.exe} test `);
      },
    );

    await t.step("sausage test <binary.wasm> by hand: the runner's own report", async () => {
      const wasm = (await testBinaries(m, source)).find((f) =>
        /\/deps\/hello-[0-9a-f]+\.wasm$/.test(f)
      );
      assert.ok(wasm, "cargo test built no test binary for hello");
      const ran = await on(m, m.exe, ["test", wasm]);
      ok(ran, "sausage test");
      assert.match(ran.stdout, /test result: ok\. [1-9]\d* passed; 0 failed/);
    });

    await t.step("build w hello; call w hello.greet", async () => {
      const b = await timed(
        "build w hello (std for the host's builds built)",
        () => on(m, m.exe, ["build", "w", "hello", "--json"]),
      );
      ok(b, "sausage build w hello");
      assert.deepEqual(JSON.parse(b.stdout.trim().split("\n").pop()!).ok, true);
      assert.match(b.stderr, /hello/);
      const c = await timed(
        "call w hello.greet (starts a host)",
        () => on(m, m.exe, ["call", "w", "hello.greet", '{"name": "Ada"}']),
      );
      ok(c, "sausage call");
      includes(c.stdout, "Ada");
    });

    await t.step(
      "run w --headless, with ps, log, call, mcp against it; sandboxes' narrow flags",
      async () => {
        const hostRun = spawnCollecting(m.exe, {
          args: ["run", "w", "--headless"],
          cwd: m.work,
          env: m.env,
          clearEnv: true,
        });
        const host = hostRun.child;
        const stderr = hostRun.stderr;
        try {
          await until(
            () => stderr().includes("sausage: running"),
            `the host to run:\n${stderr()}`,
            300_000,
          );
          const c = await on(m, m.exe, ["call", "w", "hello.greet", '{"name": "Grace"}']);
          ok(c, "sausage call against the running host");
          includes(c.stdout, "Grace");

          const ps = await on(m, m.exe, ["ps", "w"]);
          ok(ps, "sausage ps");
          // The running host serves (said on stderr()); the call has ended, so no process runs.
          assert.match(ps.stderr, /sausage run/, ps.stderr);
          assert.ok(!ps.stderr.includes("no host runs"), ps.stderr);
          assert.equal(ps.stdout, "no process runs\n");

          // Lines for people (a line per finished call), and the raw entries with --json.
          const log = await on(m, m.exe, ["log", "w", "hello"]);
          ok(log, "sausage log");
          assert.match(log.stdout, /hello\.greet hello-\S+ \d+ ms exit 0/);
          const raw = await on(m, m.exe, ["log", "w", "hello", "--json"]);
          ok(raw, "sausage log --json");
          assert.match(raw.stdout, /Grace/);

          // The sandboxes: the unpacked Deno running sandbox/main.ts with reads
          // of the world and the cache only, writes of the world only.
          const realWorld = await Deno.realPath(world);
          const sandboxes = (await commandLines("sandbox/main.ts")).filter((a) =>
            a.some((x) => x.startsWith("--allow-write=") && x.includes(realWorld))
          );
          assert.ok(sandboxes.length > 0, "no sandbox of the world runs");
          for (const args of sandboxes) {
            const deno = args.find((a) => a.endsWith("/deno"))!;
            assert.ok(deno.startsWith(`${m.cache}/sausage/dist/`), `sandbox runs ${deno}`);
            // Besides the world, only the sandbox's own hop folder (a private temporary folder
            // for its socket to the core, removed once connected).
            const hop = (x: string) => /\/sausage-hop-[^/]+$/.test(x);
            const writes = args.find((a) => a.startsWith("--allow-write="))!.slice(14).split(",");
            assert.deepEqual(writes.filter((x) => !hop(x)), [realWorld]);
            assert.ok(writes.filter(hop).length <= 1, writes.join(","));
            const reads = args.find((a) => a.startsWith("--allow-read="))!.slice(13).split(",")
              .filter((x) => !hop(x));
            for (const r of reads) {
              assert.ok(
                r.startsWith(realWorld) || r.startsWith(`${m.cache}/sausage`),
                args.join(" "),
              );
            }
            assert.ok(!args.includes("--allow-all") && !args.includes("-A"), args.join(" "));
            assert.ok(!args.some((a) => /^--allow-(run|ffi|sys|env$)/.test(a)), args.join(" "));
          }

          const tools = await mcpTools(m);
          assert.ok(tools.includes("hello_greet"), `mcp tools: ${tools.join(", ")}`);
        } finally {
          host.kill("SIGTERM");
          const status = await host.status;
          await hostRun.read;
          assert.deepEqual(status.code, 0, stderr());
        }
      },
    );
  } finally {
    console.log(`  dist timings (this machine): ${timings.join("; ")}`);
    await Deno.remove(m.tmp, { recursive: true }).catch(() => {});
    await Deno.remove(m.bin, { recursive: true }).catch(() => {});
  }
});

/** The README's `welcome`, in TypeScript: hello's greeting through its generated client. */
const WELCOME_TS = `// Welcome: greets newcomers, through the hello plugin.
import { greet } from "./imports/hello"; // from imports/hello.json: a typed client

/** Welcome someone: hello's greeting, then a word of welcome. */
export function welcome(params: {
  /** The newcomer's name. */
  name: string;
}): string {
  return \`\${greet({ name: params.name }).text} Welcome to this world.\`;
}
`;

Deno.test({
  name:
    "dist/sausage alone, the README walk-through's TypeScript twin from an empty cache: new --lang ts, build, call, methods, a second plugin through hello's typed client, run",
  ...opts,
}, async (t) => {
  const m = await machine();
  const timings: string[] = [];
  const timed = async (what: string, args: string[]): Promise<Ran> => {
    const start = performance.now();
    const r = await on(m, m.exe, args);
    timings.push(`${what}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
    ok(r, `sausage ${args.join(" ")}`);
    return r;
  };
  const world = `${m.work}/my-world`;
  try {
    await t.step("new my-world --lang ts; build, call, methods hello", async () => {
      const made = await timed("new --lang ts", ["new", "my-world", "--lang", "ts"]);
      includes(made.stdout, "made the world my-world: it holds the TypeScript plugin hello");
      // No Rust: no cargo config, no std built.
      await assert.rejects(Deno.stat(`${world}/.cargo/config.toml`));
      const built = await timed("build hello (the engine compiled once)", [
        "build",
        "my-world",
        "hello",
      ]);
      assert.match(built.stderr, /hello is active: 2 tests passed/);
      const greeted = await timed("call hello.greet", [
        "call",
        "my-world",
        "hello.greet",
        '{"name": "Ada"}',
      ]);
      assert.deepEqual(JSON.parse(greeted.stdout), { text: "Hello, Ada!", count: 1 });
      const methods = await timed("methods", ["methods", "my-world", "hello"]);
      includes(methods.stdout, "hello.greet {name?: string} -> {text: string, count: integer}");
    });

    await t.step("a second plugin, welcome, calls hello through its typed client", async () => {
      await timed("new welcome --lang ts", ["new", "my-world", "welcome", "--lang", "ts"]);
      const imported = await timed("import", ["import", "my-world", "welcome", "hello"]);
      includes(imported.stdout, "In welcome's plugin.ts:");
      const source = `${world}/plugins/welcome/source`;
      includes(await Deno.readTextFile(`${source}/imports/hello.ts`), "export function greet(");
      await Deno.writeTextFile(`${source}/plugin.ts`, WELCOME_TS);
      await Deno.remove(`${source}/plugin_test.ts`); // the template's tests were of greet
      const built = await timed("build welcome", ["build", "my-world", "welcome"]);
      assert.match(built.stderr, /welcome is active/);
      const welcomed = await timed("call welcome.welcome", [
        "call",
        "my-world",
        "welcome.welcome",
        '{"name": "Ada"}',
      ]);
      assert.equal(JSON.parse(welcomed.stdout), "Hello, Ada! Welcome to this world.");
    });

    await t.step("run my-world --headless builds nothing (both current) and answers", async () => {
      const hostRun = spawnCollecting(m.exe, {
        args: ["run", "my-world", "--headless"],
        cwd: m.work,
        env: m.env,
        clearEnv: true,
      });
      const host = hostRun.child;
      const stderr = hostRun.stderr;
      try {
        await until(() => stderr().includes("sausage: running"), `the host:\n${stderr()}`, 300_000);
        assert.doesNotMatch(stderr(), /testing, building/, stderr());
        const c = await on(m, m.exe, ["call", "my-world", "welcome.welcome", '{"name": "Bo"}']);
        ok(c, "sausage call against the running host");
        assert.equal(JSON.parse(c.stdout), "Hello, Bo! Welcome to this world.");
      } finally {
        host.kill("SIGTERM");
        const status = await host.status;
        await hostRun.read;
        assert.deepEqual(status.code, 0, stderr());
      }
    });
  } finally {
    console.log(`  dist TypeScript timings (this machine): ${timings.join("; ")}`);
    await Deno.remove(m.tmp, { recursive: true }).catch(() => {});
    await Deno.remove(m.bin, { recursive: true }).catch(() => {});
  }
});

/** The `.wasm` test binaries cargo built for the crate in `source` (from `cargo test --no-run`). */
async function testBinaries(m: Machine, source: string): Promise<string[]> {
  const r = await on(m, "cargo", ["test", "--no-run", "--message-format=json"], source);
  ok(r, "cargo test --no-run");
  return r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
    .filter((msg) => msg.reason === "compiler-artifact" && msg.executable)
    .map((msg) => msg.executable as string);
}

/** `sausage mcp w`: initialize, then tools/list; resolves with the tools' names. */
async function mcpTools(m: Machine): Promise<string[]> {
  const child = new Deno.Command(m.exe, {
    args: ["mcp", "w"],
    cwd: m.work,
    env: m.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const requests = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "dist_test", version: "0" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  ];
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"),
  );
  let text = "";
  const dec = new TextDecoder();
  const reader = child.stdout.getReader();
  let list: { result?: { tools: { name: string }[] } } | undefined;
  const deadline = setTimeout(() => child.kill("SIGKILL"), 120_000);
  try {
    while (!list) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
      list = text.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
        .find((msg) => msg.id === 2);
    }
  } finally {
    clearTimeout(deadline);
    await writer.close().catch(() => {});
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.status;
    await child.stderr.cancel().catch(() => {});
  }
  assert.ok(list?.result, `no tools/list answer from sausage mcp:\n${text}`);
  return list.result.tools.map((tool) => tool.name);
}

Deno.test({
  name:
    "dist/sausage's unpack: three first starts at once make one; a missing file or (asked to verify) a changed one is unpacked again; a damaged file is refused",
  ...opts,
}, async () => {
  const m = await machine();
  try {
    const starts = await Promise.all([1, 2, 3].map(() => on(m, m.exe, ["--version"])));
    for (const r of starts) ok(r, "sausage --version (racing)");
    assert.deepEqual(new Set(starts.map((r) => r.stdout)).size, 1);
    const names = await unpacks(m);
    assert.equal(names.length, 1, `left in the cache: ${names.join(", ")}`);
    const dir = `${m.cache}/sausage/dist/${names[0]}`;
    const want = starts[0].stdout;

    // A file gone: seen on the next start, unpacked again.
    await Deno.remove(`${dir}/main.ts`);
    const again = await on(m, m.exe, ["--version"]);
    ok(again, "sausage --version after main.ts was removed");
    assert.match(again.stderr, /unpacking into/);
    assert.equal(again.stdout, want);
    assert.ok((await Deno.stat(`${dir}/main.ts`)).isFile);

    // A file changed: found when asked to verify (SAUSAGE_DIST_VERIFY), unpacked again.
    const version = `${dir}/cli/version.ts`;
    const original = await Deno.readTextFile(version);
    await Deno.writeTextFile(version, original.replace("`deno ${", "`changed ${"));
    const changed = await on(m, m.exe, ["--version"]);
    assert.match(changed.stdout, /^changed /m); // not checked on an ordinary start
    const verified = await on({ ...m, env: { ...m.env, SAUSAGE_DIST_VERIFY: "1" } }, m.exe, [
      "--version",
    ]);
    ok(verified, "sausage --version, verifying");
    assert.match(verified.stderr, /differs from its manifest: unpacking again/);
    assert.equal(verified.stdout, want);
    assert.equal(await Deno.readTextFile(version), original);
    assert.deepEqual(await unpacks(m), names);

    // The file itself damaged: refused before anything is unpacked.
    const bytes = await Deno.readFile(m.exe);
    bytes[bytes.length - 100] ^= 0xff;
    const bad = `${m.tmp}/app/sausage-damaged`;
    await Deno.writeFile(bad, bytes, { mode: 0o755 });
    const other = { ...m, env: { ...m.env, XDG_CACHE_HOME: `${m.tmp}/cache2` } };
    const refused = await on(other, bad, ["--version"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /sausage-damaged is damaged .*download it again/);
    const left = await Array.fromAsync(Deno.readDir(`${m.tmp}/cache2/sausage/dist`));
    assert.deepEqual(left.map((e) => e.name), []);
  } finally {
    await Deno.remove(m.tmp, { recursive: true }).catch(() => {});
    await Deno.remove(m.bin, { recursive: true }).catch(() => {});
  }
});
