/**
 * Makes every plugin folder of a world an ordinary cargo project: writes
 * `<world>/.cargo/config.toml`, which cargo finds from any `plugins/<name>/source/`,
 * so `cargo test`, `cargo check`, `cargo doc` and rust-analyzer work there
 * with no flags. It maps `sausage-plugin` to this checkout's SDK, sets the
 * target, the test runner (`sausage test`) and a target folder in the cache.
 *
 * On the offline toolchain (Debian's rustc, `toolchain.ts`) it also points
 * cargo at Debian's rustc, the vendored crates and the linker flags, and at a
 * sysroot with std (and libtest) built once for `wasm32-wasip1`
 * ({@link prepareSysroot}): with std prebuilt, no `-Zbuild-std` and no
 * `RUSTC_BOOTSTRAP` are needed, so any cargo (rustup's stable one too) works.
 * Its rustflags are `build.rustflags`, which the host's own builds override
 * with `target.wasm32-wasip1.rustflags`, so the file never changes them.
 *
 * The file holds absolute paths: it is rewritten by `sausage new`, `run`,
 * `build` and `dev`, so a copied or moved world gets its own.
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { cargoEnv, DEFAULT_SDK_DIR, lines } from "./cargo_build.ts";
import { worldRunnerCommand } from "./test_run.ts";
import { detectToolchain, type OfflineToolchain, type Toolchain } from "./toolchain.ts";
import { BuildError } from "./toolchain.ts";

/** The SDK crates a plugin may depend on by name. */
const SDK_CRATES = ["sausage-plugin", "sausage-plugin-macros"];

/** Where the config goes, relative to the world. */
const WORLD_CARGO_CONFIG = ".cargo/config.toml";

/** A TOML basic string (JSON's escapes are valid in TOML). */
function str(value: string): string {
  return JSON.stringify(value);
}

/** A TOML array of strings. */
function arr(values: string[]): string {
  return `[${values.map(str).join(", ")}]`;
}

async function sha16(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** The `link-arg=…` objects and `-L` flags of the offline toolchain, out of its `--config` flags. */
function offlineRustflags(tc: OfflineToolchain): string[] {
  const i = tc.cargoArgs.findIndex((a) => a.startsWith("target.wasm32-wasip1.rustflags="));
  return JSON.parse(tc.cargoArgs[i].slice("target.wasm32-wasip1.rustflags=".length));
}

/**
 * The text of `<world>/.cargo/config.toml` for the toolchain `tc`, with std
 * from `sysroot` on the offline path.
 */
function cargoConfigText(
  tc: Toolchain,
  opts: { targetDir: string; sdkDir: string; runner: string; sysroot?: string },
): string {
  const out = [
    "# Written by sausage (new, run, build, dev) so that cargo works in plugins/*/source/",
    "# with no flags: cargo test, check, doc, and rust-analyzer. It is rewritten; do not edit.",
    "[build]",
    `target = ${str(tc.target)}`,
    `target-dir = ${str(opts.targetDir)}`,
  ];
  if (tc.kind === "offline-wasip1") {
    const flags = ["--sysroot", opts.sysroot ?? "", ...offlineRustflags(tc)];
    out.push(
      `rustc = ${str(tc.rustc)}`,
      `rustdoc = ${str(tc.env.RUSTDOC ?? "/usr/bin/rustdoc")}`,
      `rustflags = ${arr(flags)}`,
      `rustdocflags = ${arr(flags)}`,
      "",
      `[target.${tc.target}]`,
      `linker = ${str(tc.wasmLd)}`,
      `runner = ${str(opts.runner)}`,
      "",
      "[net]",
      "offline = true",
      "",
      "[source.crates-io]",
      `replace-with = "sausage-vendor"`,
      "",
      "[source.sausage-vendor]",
      `directory = ${str(tc.vendorDir)}`,
      "",
      "[env]",
      ...Object.entries(tc.env).filter(([k]) => /^(CC|AR|CFLAGS)_/.test(k)).map(([k, v]) =>
        `${k} = ${str(v)}`
      ),
      "",
      "[patch.crates-io]",
      `wit-bindgen = { path = ${str(tc.witBindgenDir)} }`,
    );
  } else {
    out.push("", `[target.${tc.target}]`, `runner = ${str(opts.runner)}`, "", "[patch.crates-io]");
  }
  for (const name of SDK_CRATES) out.push(`${name} = { path = ${str(`${opts.sdkDir}/${name}`)} }`);
  return out.join("\n") + "\n";
}

/** Options of {@link writeCargoConfig}. */
export interface CargoConfigOptions {
  /** Progress lines (the sysroot's build, once per toolchain). */
  onProgress?: (line: string) => void;
  /** Write the file without building the sysroot when it is missing (it is built later). */
  skipSysroot?: boolean;
}

/**
 * Writes `<world>/.cargo/config.toml` (when its text changed), building the
 * offline toolchain's sysroot first when it is missing. Resolves with the path.
 */
export async function writeCargoConfig(
  worldRoot: string,
  opts: CargoConfigOptions = {},
): Promise<string> {
  const tc = await detectToolchain();
  const root = await Deno.realPath(worldRoot);
  const sysroot = tc.kind === "offline-wasip1"
    ? (opts.skipSysroot ? sysrootPath(tc) : await prepareSysroot(tc, opts.onProgress))
    : undefined;
  const text = cargoConfigText(tc, {
    targetDir: `${cacheDir()}/target/worlds/${await sha16(root)}`,
    sdkDir: DEFAULT_SDK_DIR,
    runner: worldRunnerCommand(),
    sysroot,
  });
  const path = `${root}/${WORLD_CARGO_CONFIG}`;
  if (await Deno.readTextFile(path).catch(() => undefined) !== text) {
    await Deno.mkdir(`${root}/.cargo`, { recursive: true });
    const tmp = `${path}.tmp-${crypto.randomUUID()}`;
    await Deno.writeTextFile(tmp, text);
    await Deno.rename(tmp, path);
  }
  return path;
}

/** The sysroot folder of the offline toolchain (it may not exist yet). */
function sysrootPath(tc: OfflineToolchain): string {
  return `${cacheDir()}/toolchain/sysroot-${tc.rustcVersion}`;
}

/** True when `path` exists. */
async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** One sysroot build per process at a time. */
let building: Promise<string> | undefined;

/**
 * Builds std, panic_abort and libtest for `wasm32-wasip1` from Debian's
 * rust-src once (`-Zbuild-std` on an empty crate, about a minute on two
 * cores), and puts the libraries in a sysroot folder in the cache
 * (`toolchain/sysroot-<rustc version>/lib/rustlib/wasm32-wasip1/lib`),
 * made in a temporary folder and renamed into place. Resolves with the folder.
 */
function prepareSysroot(
  tc: OfflineToolchain,
  onProgress?: (line: string) => void,
): Promise<string> {
  building ??= buildSysroot(tc, onProgress).finally(() => building = undefined);
  return building;
}

async function buildSysroot(
  tc: OfflineToolchain,
  onProgress?: (line: string) => void,
): Promise<string> {
  const dest = sysrootPath(tc);
  if (await exists(`${dest}/lib/rustlib/${tc.target}/lib`)) return dest;
  onProgress?.(
    "sausage: building std for cargo in plugin folders (once for this toolchain, a minute or more)",
  );
  const work = `${cacheDir()}/toolchain/sysroot-build`;
  await Deno.mkdir(`${work}/crate/src`, { recursive: true });
  await Deno.writeTextFile(
    `${work}/crate/Cargo.toml`,
    '[package]\nname = "sausage-sysroot"\nversion = "0.0.0"\nedition = "2021"\n',
  );
  await Deno.writeTextFile(`${work}/crate/src/lib.rs`, "");
  const args = [
    "build",
    "--release",
    "--target",
    tc.target,
    "--manifest-path",
    `${work}/crate/Cargo.toml`,
    "--message-format",
    "json",
    ...tc.cargoArgs.map((a) =>
      a.startsWith("-Zbuild-std=") ? "-Zbuild-std=std,panic_abort,test" : a
    ),
  ];
  const env = { ...cargoEnv(tc), CARGO_TARGET_DIR: `${work}/target` };
  const child = new Deno.Command(tc.cargo, {
    args,
    env,
    clearEnv: true,
    cwd: `${work}/crate`,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const rlibs: string[] = [];
  const errors: string[] = [];
  await Promise.all([
    (async () => {
      for await (const line of lines(child.stdout)) {
        try {
          const msg = JSON.parse(line);
          if (msg.reason === "compiler-artifact" && !msg.package_id.includes("sausage-sysroot")) {
            rlibs.push(...msg.filenames.filter((f: string) => f.endsWith(".rlib")));
          }
        } catch { /* not JSON */ }
      }
    })(),
    (async () => {
      for await (const line of lines(child.stderr)) {
        errors.push(line);
        if (line.trim()) onProgress?.(`  ${line.trim()}`);
      }
    })(),
  ]);
  const status = await child.status;
  if (!status.success || !rlibs.length) {
    throw new BuildError("std could not be built for cargo in plugin folders", errors.join("\n"));
  }
  const tmp = `${dest}.tmp-${crypto.randomUUID()}`;
  const lib = `${tmp}/lib/rustlib/${tc.target}/lib`;
  await Deno.mkdir(lib, { recursive: true });
  for (const file of rlibs) await Deno.copyFile(file, `${lib}/${file.split("/").pop()}`);
  await Deno.rename(tmp, dest).catch(async () => {
    await Deno.remove(tmp, { recursive: true }); // another process made it first
  });
  return dest;
}
