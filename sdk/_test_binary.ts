/**
 * Runs the Rust tests of a plugin (`#[test]`, `#[sausage_plugin::test]`)
 * under WASI, one test per instance, each in an empty temporary world, for
 * the SDK's own tests. A stand-in for the test runner of `cargo.build`
 * (section 11), which does not exist yet: it answers `core.lock`,
 * `core.unlock`, `core.notify` and `core.log` as that runner will, and
 * fails every other call.
 *
 * It builds with the same toolchain as `buildPlugin` (plus libtest in
 * `-Zbuild-std`) and runs the component in this Deno process with the
 * sandbox's WASI host.
 *
 * @module
 */

import { DEFAULT_SDK_DIR } from "../core/build/cargo_build.ts";
import { BuildError, detectToolchain } from "../core/build/toolchain.ts";
import { ComponentCache } from "../core/component_cache.ts";
import { cacheDir } from "../core/paths.ts";
import { cliInterfaces, GuestExit } from "../sandbox/wasi/cli.ts";
import { clockInterfaces } from "../sandbox/wasi/clocks.ts";
import { filesystemInterfaces, OpenFiles } from "../sandbox/wasi/filesystem.ts";
import { networkInterfaces } from "../sandbox/wasi/network.ts";
import { ByteQueue, LineSink } from "../sandbox/wasi/pipes.ts";
import { pollInterface } from "../sandbox/wasi/poll.ts";
import { randomInterfaces } from "../sandbox/wasi/random.ts";
import { ProcessResources } from "../sandbox/wasi/resources.ts";
import {
  errorInterface,
  InputStream,
  OutputStream,
  streamsInterface,
} from "../sandbox/wasi/streams.ts";
import { DiskMount } from "../vfs/disk_mount.ts";

/** The outcome of one test. */
export interface TestOutcome {
  name: string;
  passed: boolean;
  /** stdout and stderr of its instance. */
  output: string[];
}

type Glue = {
  instantiate(
    getCoreModule: (name: string) => WebAssembly.Module,
    imports: Record<string, unknown>,
    instantiateCore: (m: WebAssembly.Module, i: WebAssembly.Imports) => WebAssembly.Instance,
  ): Promise<{ run: { run(): Promise<void> } }>;
};

/** Builds the test binary of the crate in `dir` into a component; returns its path. */
export async function buildTests(dir: string, sdkDir = DEFAULT_SDK_DIR): Promise<string> {
  const tc = await detectToolchain();
  const manifest = `${dir}/Cargo.toml`;
  const cargoArgs = tc.cargoArgs.map((a) => a.startsWith("-Zbuild-std=") ? `${a},test` : a);
  const args = [
    "test",
    "--no-run",
    "--release",
    "--target",
    tc.target,
    "--message-format",
    "json",
    "--manifest-path",
    manifest,
    ...cargoArgs,
  ];
  for (const name of ["sausage-plugin", "sausage-plugin-macros"]) {
    args.push("--config", `patch.crates-io.${name}.path=${JSON.stringify(`${sdkDir}/${name}`)}`);
  }
  if (tc.kind === "offline-wasip1") {
    const key = Array.from(new TextEncoder().encode(dir)).reduce((h, b) => (h * 31 + b) >>> 0, 7);
    args.push(
      "-Zlockfile-path",
      "--config",
      `resolver.lockfile-path="${tc.targetDir}/lockfiles/test-${key}/Cargo.lock"`,
    );
  }
  const env = Deno.env.toObject();
  for (const k of ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_TARGET"]) delete env[k];
  const out = await new Deno.Command(tc.cargo, {
    args,
    cwd: dir,
    env: { ...env, ...tc.env, CARGO_TARGET_DIR: tc.targetDir, CARGO_TERM_COLOR: "never" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  let executable: string | undefined;
  const messages: string[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const msg = JSON.parse(line);
    if (msg.reason === "compiler-message") {
      messages.push(msg.message.rendered ?? msg.message.message);
    }
    if (msg.reason === "compiler-artifact" && msg.profile?.test && msg.executable) {
      executable = msg.executable;
    }
  }
  if (!out.success || !executable) {
    throw new BuildError(
      `cargo test --no-run failed for ${dir}`,
      [...messages, new TextDecoder().decode(out.stderr)].join("\n"),
    );
  }
  let component = await Deno.readFile(executable);
  if (tc.kind === "offline-wasip1") {
    const { componentNew, preview1AdapterCommandPath } = await import("@bytecodealliance/jco");
    const adapter = await Deno.readFile(preview1AdapterCommandPath());
    component = await componentNew(component, [["wasi_snapshot_preview1", adapter]]);
  }
  const path = `${cacheDir()}/sdk-test/${dir.split("/").pop()}-tests.wasm`;
  await Deno.mkdir(`${cacheDir()}/sdk-test`, { recursive: true });
  await Deno.writeFile(path, component);
  return path;
}

/** Lists the tests of a test component (`--list`). */
export async function listTests(component: string): Promise<string[]> {
  const world = await Deno.makeTempDir({ prefix: "sausage-test-world-" });
  try {
    const { output } = await runInstance(component, world, ["--list", "--format", "terse"], {});
    return output.filter((l) => l.endsWith(": test")).map((l) => l.slice(0, -": test".length));
  } finally {
    await Deno.remove(world, { recursive: true });
  }
}

/** Runs one test in its own instance and an empty world. */
export async function runTest(
  component: string,
  name: string,
  env: Record<string, string>,
): Promise<TestOutcome> {
  const world = await Deno.makeTempDir({ prefix: "sausage-test-world-" });
  try {
    const r = await runInstance(component, world, ["--exact", name, "--test-threads", "1"], env);
    return {
      name,
      passed: r.status === 0 && r.output.some((l) => l.includes("1 passed")),
      output: r.output,
    };
  } finally {
    await Deno.remove(world, { recursive: true });
  }
}

const cache = new ComponentCache();

/** Runs the test binary once with `args`; answers its calls to the core. */
async function runInstance(
  component: string,
  world: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number; output: string[] }> {
  const { dir } = await cache.load(component);
  const glue = await import(`file://${dir}/plugin.js`) as Glue;
  const modules = new Map<string, WebAssembly.Module>();
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.endsWith(".wasm")) {
      modules.set(e.name, await WebAssembly.compile(await Deno.readFile(`${dir}/${e.name}`)));
    }
  }
  const output: string[] = [];
  const stdin = new ByteQueue();
  const answer = (line: string) => stdin.push(new TextEncoder().encode(line + "\n"));
  const onStdout = (line: string) => {
    const msg = parseRequest(line);
    if (!msg) {
      if (line.trim()) output.push(line);
      return;
    }
    if (msg.id === undefined) return; // core.notify and other notifications
    const result = msg.method === "core.lock"
      ? { held: true }
      : msg.method === "core.unlock" || msg.method === "core.log"
      ? msg.method === "core.log" ? [] : {}
      : undefined;
    answer(JSON.stringify(
      result !== undefined ? { jsonrpc: "2.0", id: msg.id, result } : {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32001, message: `${msg.method}: a test has no other plugins` },
      },
    ));
  };
  const stdout = new LineSink(onStdout);
  const stderr = new LineSink((l) => output.push(l));
  const files = new OpenFiles();
  const resources = new ProcessResources();
  const imports = {
    ...cliInterfaces({
      env: Object.entries(env),
      args: ["test", ...args],
      cwd: "/",
      stdin: new InputStream(stdin),
      stdout: new OutputStream(stdout),
      stderr: new OutputStream(stderr),
    }),
    ...clockInterfaces(),
    ...randomInterfaces(),
    ...filesystemInterfaces([{ guestPath: "/", mount: new DiskMount(world) }], files),
    "wasi:io/poll": pollInterface,
    "wasi:io/streams": streamsInterface,
    "wasi:io/error": errorInterface,
    ...networkInterfaces(resources),
  };
  let status = 0;
  try {
    const instance = await glue.instantiate(
      (n) => modules.get(n)!,
      imports,
      (m, i) => new WebAssembly.Instance(m, i),
    );
    await instance.run.run();
  } catch (e) {
    status = e instanceof GuestExit ? e.status : 1;
    if (!(e instanceof GuestExit)) output.push(`trap: ${e instanceof Error ? e.message : e}`);
  } finally {
    files.closeAll();
    resources.releaseAll();
  }
  stdout.finish();
  stderr.finish();
  return { status, output };
}

function parseRequest(line: string): { id?: string | number; method: string } | undefined {
  if (!line.trimStart().startsWith("{")) return undefined;
  try {
    const msg = JSON.parse(line);
    return typeof msg.method === "string" ? msg : undefined;
  } catch {
    return undefined;
  }
}
