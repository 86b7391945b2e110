/**
 * Makes every plugin folder of a world an ordinary cargo project: writes
 * `<world>/.cargo/config.toml`, which cargo finds from any `plugins/<name>/source/`,
 * so `cargo test`, `cargo check`, `cargo doc` and rust-analyzer work there
 * with no flags. It maps `sausage-plugin` to the world's SDK copy
 * (`plugins/cargo/sdk/`, made by `new` and by every host), sets the target, the test
 * runner (`sausage test`) and the world's build folder in the cache, the one
 * `cargo.build` uses (`build_folders.ts`): with the same flags and the same
 * paths, what `cargo test` compiled here the world's builds do not compile
 * again (each crate once per world and profile).
 *
 * On the offline toolchain (Debian's rustc, `toolchain.ts`) it also points
 * cargo at Debian's rustc, the vendored crates and the linker flags, and at a
 * sysroot with std (and libtest) built once for `wasm32-wasip1`
 * (`sysroot.ts`, shared with the host's builds): with std prebuilt, no `-Zbuild-std` and no
 * `RUSTC_BOOTSTRAP` are needed, so any cargo (rustup's stable one too) works.
 * Its rustflags are `build.rustflags`, which the host's own builds override
 * with `target.wasm32-wasip1.rustflags`, so the file never changes them.
 *
 * Beside it goes `<world>/rust-toolchain.toml`, which points rustup's
 * proxies at Debian's toolchain, so `cargo clippy`, `cargo fmt` and
 * rust-analyzer in a plugin folder are the rustc of the sysroot too.
 *
 * The file holds absolute paths: it is rewritten by `sausage new`, `run`,
 * `build` and `dev`, so a copied or moved world gets its own. Guests may
 * change `.cargo/`: the file is read and written confined to the world
 * (`world_files.ts`), so a link there is replaced or refused, never followed.
 *
 * @module
 */

import { useBuildFolders } from "./build_folders.ts";
import { syncSdk, worldSdkDir } from "./world_sdk.ts";
import { World } from "../world/world.ts";
import { DEFAULT_SDK_DIR } from "./cargo_build.ts";
import { worldRunnerCommand } from "./test_run.ts";
import { detectToolchain, type Toolchain } from "./toolchain.ts";
import { prepareSysroot } from "./sysroot.ts";
import { readWorldText, removeWorldEntry, writeWorldFile } from "../world/world_files.ts";

/** The SDK crates a plugin may depend on by name. */
const SDK_CRATES = ["sausage-plugin", "sausage-plugin-macros"];

/** Where the config goes, relative to the world. */
const WORLD_CARGO_CONFIG = ".cargo/config.toml";

/** Where rustup's proxies learn which toolchain the world's cargo projects use. */
const WORLD_TOOLCHAIN_FILE = "rust-toolchain.toml";

/** The first line of the toolchain file sausage writes (a file without it is the owner's). */
const TOOLCHAIN_MARK = "# Written by sausage";

/** A TOML basic string (JSON's escapes are valid in TOML). */
function str(value: string): string {
  return JSON.stringify(value);
}

/** A TOML array of strings. */
function arr(values: string[]): string {
  return `[${values.map(str).join(", ")}]`;
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
    const flags = ["--sysroot", opts.sysroot ?? tc.sysroot, ...tc.rustflags];
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

/**
 * The text of `<world>/rust-toolchain.toml` on the offline toolchain: it
 * points rustup's proxies (`cargo`, `cargo clippy`, `cargo fmt`,
 * `rust-analyzer`, first on PATH where rustup is installed) at the folder of
 * Debian's rustc, so every tool in a plugin folder is the rustc that built
 * the sysroot (rustup's own clippy failed there with E0514, std from another
 * rustc). Without rustup nothing reads it. Null when rustc and cargo are not
 * in one `<prefix>/bin`.
 */
function toolchainFileText(tc: Toolchain): string | null {
  if (tc.kind !== "offline-wasip1") return null;
  const prefix = (bin: string) => bin.replace(/\/bin\/[^/]+$/, "");
  if (prefix(tc.rustc) !== prefix(tc.cargo) || prefix(tc.rustc) === tc.rustc) return null;
  return [
    `${TOOLCHAIN_MARK} so that rustup's cargo, clippy, rustfmt and rust-analyzer are the`,
    "# rustc that built the world's std (its sysroot). It is rewritten; do not edit.",
    "[toolchain]",
    `path = ${str(prefix(tc.rustc))}`,
  ].join("\n") + "\n";
}

/** Writes or removes `<world>/rust-toolchain.toml` as `tc` needs; an owner's own file stays. */
function writeToolchainFile(root: string, tc: Toolchain): void {
  let old: string | undefined;
  try {
    old = readWorldText(root, WORLD_TOOLCHAIN_FILE);
  } catch { /* a link out of the world: replaced */ }
  if (old !== undefined && !old.startsWith(TOOLCHAIN_MARK)) return;
  const text = toolchainFileText(tc);
  if (text === null) {
    if (old !== undefined) removeWorldEntry(root, WORLD_TOOLCHAIN_FILE);
  } else if (old !== text) writeWorldFile(root, WORLD_TOOLCHAIN_FILE, text);
}

/**
 * The world's SDK copy (`plugins/cargo/sdk/`), which `cargo.build` builds
 * against; with `sync`, brought up to date first as a host does (this
 * checkout's SDK when no copy can be made). Without, a host makes it at
 * its start, before any build (`run`, `dev`, `build`).
 */
async function worldSdk(root: string, sync: boolean): Promise<string> {
  if (!sync) return worldSdkDir(root);
  try {
    await syncSdk(DEFAULT_SDK_DIR, root, `${new World(root).coreState()}/sdk-copy.json`);
    return worldSdkDir(root);
  } catch {
    return DEFAULT_SDK_DIR;
  }
}

/** Options of {@link writeCargoConfig}. */
export interface CargoConfigOptions {
  /** Progress lines (the sysroot's build, once per toolchain). */
  onProgress?: (line: string) => void;
  /** Write the file without building the sysroot when it is missing (it is built later). */
  skipSysroot?: boolean;
  /** Bring the world's SDK copy up to date first (`new`: `cargo test` may come before any host). */
  syncSdk?: boolean;
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
    ? (opts.skipSysroot ? tc.sysroot : await prepareSysroot(tc, opts.onProgress))
    : undefined;
  // The world's build folder and SDK copy, as `cargo.build` has them: what
  // `cargo test` here compiled, `sausage build` does not compile again.
  const { target } = await useBuildFolders(tc, root);
  await Deno.mkdir(target, { recursive: true });
  const text = cargoConfigText(tc, {
    targetDir: target,
    sdkDir: await worldSdk(root, opts.syncSdk ?? false),
    runner: worldRunnerCommand(),
    sysroot,
  });
  const path = `${root}/${WORLD_CARGO_CONFIG}`;
  let old: string | undefined;
  try {
    old = readWorldText(root, WORLD_CARGO_CONFIG);
  } catch { /* a link out of the world: replaced */ }
  if (old !== text) writeWorldFile(root, WORLD_CARGO_CONFIG, text);
  writeToolchainFile(root, tc);
  return path;
}
