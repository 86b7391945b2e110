/**
 * Builds a plugin's Rust source folder into a WASI command component with
 * the toolchain {@link detectToolchain} finds, reporting cargo's progress and
 * the compiler's warnings.
 *
 * @module
 */

import { streamLines } from "../../rpc/line_splitter.ts";
import { adaptCommand } from "./adapt_command.ts";
import { BuildError, detectToolchain, type Toolchain } from "./toolchain.ts";
import { spawnGroup } from "./process_group.ts";
import { unusedPatchFilter } from "./patch_note.ts";
import { buildSpec, jailed } from "./build_jail.ts";
import { sha256 } from "../cache/sha256.ts";
import { type BuildPlace, buildPlace } from "./build_folders.ts";
import { cargoEnv } from "./build_env.ts";
import { prepareSysroot } from "./sysroot.ts";
import { relativeTo } from "../../vfs/confined_dir.ts";
import { writeWorldFile } from "../world/world_files.ts";

export { BuildError } from "./toolchain.ts";
import type { Diagnostic } from "./diagnostic.ts";
export { cargoEnv } from "./build_env.ts";

/** Options of {@link buildPlugin}. */
export interface BuildOptions {
  /** Called with each line cargo prints on stderr (`Compiling serde v1.0.152`, …). */
  onProgress?: (line: string) => void;
  /** Build with `--release` (default `true`). */
  release?: boolean;
  /**
   * The SDK folder that `sausage-plugin = "0.1"` resolves to: it holds
   * `sausage-plugin/` and `sausage-plugin-macros/`, wired in with
   * `[patch.crates-io]`. Defaults to this repository's `sdk/`.
   */
  sdkDir?: string;
  /** Aborting it ends cargo (and what cargo started) and rejects with a {@link BuildError}. */
  signal?: AbortSignal;
  /**
   * The world whose plugin this is: the build uses that world's own build
   * folders (`build_folders.ts`), its source and SDK folders must be real
   * folders of the world, and an output in the world is written confined to
   * it. Without it: one of this checkout's crates.
   */
  world?: string;
}

/** This repository's SDK folder, the default of {@link BuildOptions.sdkDir}. */
export const DEFAULT_SDK_DIR = decodeURIComponent(new URL("../../sdk", import.meta.url).pathname);

/** The SDK's crates, each patched in from `<sdkDir>/<name>`. */
export const SDK_CRATES = ["sausage-plugin", "sausage-plugin-macros"];

/** What {@link buildPlugin} made. */
export interface BuildResult {
  /** The component file written (`outWasm`). */
  wasm: string;
  /** Which toolchain built it. */
  toolchain: Toolchain["kind"];
  /** The compiler's warnings, rendered as text, one entry per diagnostic. */
  warnings: string[];
  /** The same warnings as rustc reported them (`warnings[i]` renders `diagnostics[i]`). */
  diagnostics: Diagnostic[];
}

/** cargo's stderr lines that only report progress; left out of a failure's output. */
const PROGRESS =
  /^\s*(Compiling|Checking|Finished|Blocking|Fresh|Locking|Adding|Updating|Running|Building)\b/;

/** The lines of a tool's output, without their line ends (a line over 16 MiB is left out). */
export function lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  return streamLines(stream);
}

/** The parent folder of a path (`.` for a bare file name). */
function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : path.slice(0, i);
}

/**
 * Checks where the build of `sourceDir` runs (`build_folders.ts`) and, on
 * the offline path, makes sure std's sysroot exists (built once, outside
 * any sandbox: std's build runs no code of a world).
 */
export async function prepareBuild(
  tc: Toolchain,
  sourceDir: string,
  opts: Pick<BuildOptions, "world" | "sdkDir" | "onProgress">,
): Promise<BuildPlace> {
  const place = await buildPlace(tc, sourceDir, {
    world: opts.world,
    sdkDir: opts.sdkDir ?? DEFAULT_SDK_DIR,
  });
  if (tc.kind === "offline-wasip1") await prepareSysroot(tc, opts.onProgress);
  return place;
}

/**
 * Builds the Rust crate in `sourceDir` (a `[[bin]]` crate, `fn main`) into a
 * WASI command component at `outWasm`, written atomically (temp file +
 * rename). On the offline path the `wasm32-wasip1` core module is adapted
 * with jco's preview-1 command adapter. Builds of one world share that
 * world's target folder; std comes built from the toolchain's sysroot.
 *
 * The crate's `Cargo.lock` is kept in the cache on the offline path (a
 * lockfile made against crates.io would not resolve offline); the wasip2 path
 * lets cargo write it next to `Cargo.toml`.
 *
 * Throws a {@link BuildError} (`cargo build failed for <dir>`) whose `output`
 * holds the compiler's messages.
 */
async function buildOne(
  sourceDir: string,
  outWasm: string,
  opts: BuildOptions = {},
): Promise<BuildResult> {
  const tc = await detectToolchain();
  const place = await prepareBuild(tc, sourceDir, opts);
  const dir = place.dir.path;
  const manifest = `${dir}/Cargo.toml`;
  if (!(await Deno.lstat(manifest).catch(() => undefined))?.isFile) {
    throw new BuildError(
      `cargo build failed for ${sourceDir}`,
      `${sourceDir}/Cargo.toml: not found`,
    );
  }
  const release = opts.release ?? true;
  const args = [
    "build",
    ...(release ? ["--release"] : []),
    "--target",
    tc.target,
    "--message-format",
    "json",
    "--manifest-path",
    manifest,
    ...await crateArgs(tc, dir, place.sdk?.path ?? DEFAULT_SDK_DIR, place.target),
  ];
  // Cargo names a path package by its path relative to the workspace, which
  // is "." for every plugin: two plugins with the same name and version in
  // the shared target folder would share one fingerprint, and the second
  // could be handed the first one's binary. A cfg naming the source folder
  // (cargo rustc passes it to the plugin's crate only) keeps them apart.
  args[0] = "rustc";
  args.push("--", "--cfg", `sausage_source="${(await sha256(dir)).slice(0, 16)}"`);

  // Our own lock around cargo and the artifact read: two crates with the same
  // package name share `target/<triple>/release/<name>.wasm`. The file lock
  // orders processes; it may not order builds of this process (POSIX record
  // locks never conflict within one process), so a queue does that.
  const lock = await Deno.open(`${place.target}/.sausage-build.lock`, {
    create: true,
    write: true,
  });
  let core: Uint8Array;
  const warnings: string[] = [];
  const diagnostics: Diagnostic[] = [];
  try {
    await lock.lock(true);
    const built = await runCargo(tc, place, args, manifest, opts);
    warnings.push(...built.warnings);
    diagnostics.push(...built.diagnostics);
    if (opts.signal?.aborted) {
      throw new BuildError(`cargo build was stopped for ${sourceDir}`, built.output);
    }
    if (!built.success) throw new BuildError(`cargo build failed for ${sourceDir}`, built.output);
    if (!built.executable) {
      throw new BuildError(
        `cargo build failed for ${sourceDir}`,
        `${manifest} has no binary target: a plugin is a [[bin]] crate (src/main.rs with fn main)\n${built.output}`,
      );
    }
    core = await Deno.readFile(built.executable);
  } finally {
    lock.close();
  }

  let component = core;
  if (tc.kind === "offline-wasip1") {
    try {
      component = await adaptCommand(core);
    } catch (e) {
      throw new BuildError(
        `cargo build failed for ${sourceDir}`,
        `turning the wasm32-wasip1 module into a component failed: ${
          e instanceof Error ? e.message : e
        }`,
      );
    }
  }
  const root = opts.world === undefined ? undefined : await Deno.realPath(opts.world);
  const inWorld = root === undefined ? null : relativeTo(root, outWasm);
  if (root !== undefined && inWorld !== null) {
    writeWorldFile(root, inWorld, component); // no link followed on the way
    return { wasm: outWasm, toolchain: tc.kind, warnings, diagnostics };
  }
  await Deno.mkdir(dirname(outWasm), { recursive: true });
  const tmp = `${outWasm}.tmp-${crypto.randomUUID()}`;
  try {
    await Deno.writeFile(tmp, component);
    await Deno.rename(tmp, outWasm);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  return { wasm: outWasm, toolchain: tc.kind, warnings, diagnostics };
}

/**
 * The arguments every cargo command of a plugin crate needs beyond its
 * subcommand: the toolchain's (`--offline`, std's sysroot, the vendored
 * source, the linker), the SDK patches, and on the offline path a lockfile
 * kept in the target folder `targetDir` (one per crate folder).
 */
export async function crateArgs(
  tc: Toolchain,
  dir: string,
  sdkDir = DEFAULT_SDK_DIR,
  targetDir = tc.targetDir,
): Promise<string[]> {
  const args = [...tc.cargoArgs, ...await sdkPatches(sdkDir)];
  if (tc.kind === "offline-wasip1") {
    const source = (await sha256(dir)).slice(0, 16);
    const lockfile = `${targetDir}/lockfiles/${source}/Cargo.lock`;
    args.push("-Zlockfile-path", "--config", `resolver.lockfile-path=${JSON.stringify(lockfile)}`);
    // Cargo names a path package by its path relative to the workspace (`.`
    // for every plugin), so same-named crates of different folders share
    // fingerprints in the shared target folder, and one could be handed the
    // other's binary (seen with test binaries of two checkouts). A cfg naming
    // the folder, for this package only, keeps them apart without touching
    // std. (The wasip2 path has no -Z: its release builds get the same cfg
    // through `cargo rustc`.)
    const toml = await Deno.readTextFile(`${dir}/Cargo.toml`).catch(() => "");
    const name = packageName(toml);
    if (name) {
      const cfg = ["--cfg", `sausage_source="${source}"`];
      // Test binaries without DWARF (`--strip-debug`): 0.8 MB instead of 6.7 MB for the
      // template's, which the runner reads, hashes and prepares; nothing reads it under WASI.
      const strip = ["-C", "strip=debuginfo"];
      // The plugin's own crate is built incrementally in release too (below): after an edit,
      // only its changed code units are optimized again. Without the thin LTO across those
      // units that rustc does by default (`-C lto=off`; the dependencies keep theirs), an
      // edit's release build took 2.8-3.3 s instead of 5.6 s at load 28 (9.5-11.5 s before
      // incremental, at load 11), for a module 4% larger (511 KB against 491 KB).
      // (A crate that sets `lto` itself keeps its own choice.)
      const noLocalLto = ["-C", "lto=off"];
      const ownLto = /^\s*lto\s*=/m.test(toml);
      const pkg = (profile: string) => `profile.${profile}.package.${JSON.stringify(name)}`;
      args.push("-Zprofile-rustflags");
      for (const profile of ["dev", "test", "release"]) {
        const flags = profile !== "release"
          ? [...cfg, ...strip]
          : ownLto
          ? cfg
          : [...cfg, ...noLocalLto];
        args.push("--config", `${pkg(profile)}.rustflags=${JSON.stringify(flags)}`);
      }
      if (!ownLto) args.push("--config", `${pkg("release")}.incremental=true`);
    }
  }
  return args;
}

/** The package name in the text of a crate's `Cargo.toml`, if it has one. */
function packageName(toml: string): string | undefined {
  const pkg = toml.split(/^\[/m).find((section) => section.startsWith("package]"));
  return pkg?.match(/^\s*name\s*=\s*"([^"]+)"/m)?.[1];
}

/**
 * Builds a plugin: see `buildOne`. Builds of one host run one at a time
 * (they share the target folder and jco's component tools).
 */
export function buildPlugin(
  sourceDir: string,
  outWasm: string,
  opts: BuildOptions = {},
): Promise<BuildResult> {
  const run = inProcess.then(() => buildOne(sourceDir, outWasm, opts));
  inProcess = run.then(() => {}, () => {});
  return run;
}

/** The tail of the queue of this process's builds. */
let inProcess: Promise<void> = Promise.resolve();

/**
 * `--config` flags that make the SDK's crates resolve to the folders in
 * `sdkDir`; none for a crate whose folder has no `Cargo.toml` (cargo would
 * fail every build on a patch it cannot load).
 */
async function sdkPatches(sdkDir: string): Promise<string[]> {
  const flags: string[] = [];
  for (const name of SDK_CRATES) {
    const dir = `${sdkDir}/${name}`;
    if (!(await Deno.stat(`${dir}/Cargo.toml`).catch(() => undefined))?.isFile) continue;
    flags.push("--config", `patch.crates-io.${name}.path=${JSON.stringify(dir)}`);
  }
  return flags;
}

/** What one cargo run reported. */
interface CargoRun {
  success: boolean;
  /** The crate's own binary (`compiler-artifact` of a `bin` target of `manifest`). */
  executable?: string;
  warnings: string[];
  diagnostics: Diagnostic[];
  /** Rendered diagnostics, then cargo's own non-progress stderr lines. */
  output: string;
}

async function runCargo(
  tc: Toolchain,
  place: BuildPlace,
  args: string[],
  manifest: string,
  opts: BuildOptions,
): Promise<CargoRun> {
  const { onProgress, signal } = opts;
  const dir = place.dir.path;
  const jail = await jailed(tc.cargo, args, cargoEnv(tc, place.target), buildSpec(tc, place));
  let child: Deno.ChildProcess;
  try {
    child = spawnGroup(jail.cmd, {
      args: jail.args,
      cwd: dir,
      env: jail.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }, signal);
  } catch (e) {
    throw new BuildError(`cannot run ${tc.cargo}`, e instanceof Error ? e.message : String(e));
  }
  const rendered: string[] = [];
  const warnings: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const stdoutOther: string[] = [];
  let executable: string | undefined;
  const readStdout = (async () => {
    for await (const line of lines(child.stdout)) {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        stdoutOther.push(line); // a build script's or rustc's stray text
        continue;
      }
      if (msg.reason === "compiler-message") {
        const d = msg.message as Diagnostic;
        const text = (d.rendered ?? d.message).trimEnd();
        rendered.push(text);
        if (d.level === "warning" && !/^\d+ warnings? emitted/.test(d.message)) {
          warnings.push(text);
          diagnostics.push(d);
        }
      } else if (
        msg.reason === "compiler-artifact" && msg.manifest_path === manifest &&
        msg.target?.kind?.includes("bin") && msg.executable
      ) {
        executable = msg.executable;
      }
    }
  })();
  const stderr: string[] = [];
  const readStderr = (async () => {
    const keep = unusedPatchFilter();
    for await (const line of lines(child.stderr)) {
      if (!keep(line)) continue;
      stderr.push(line);
      if (line.trim()) onProgress?.(line);
    }
  })();
  const [status] = await Promise.all([child.status, readStdout, readStderr]);
  const output = [
    ...rendered,
    ...stdoutOther,
    ...stderr.filter((l) => l.trim() && !PROGRESS.test(l)),
  ].join("\n");
  return { success: status.success, executable, warnings, diagnostics, output };
}
