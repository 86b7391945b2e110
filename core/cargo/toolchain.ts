/**
 * Finds the Rust toolchain that turns plugin source into WASI components, and
 * prepares it: either a real `wasm32-wasip2` target (rustup), or the offline
 * stand-in built from Debian packages (`rustc-web` + `rust-web-src`,
 * `wasi-libc`, `wasm-ld`) that targets `wasm32-wasip1` with std built once
 * from source into a sysroot (`sysroot.ts`) and is adapted to a component
 * afterwards. See `scripts/install-toolchain.sh`.
 *
 * The offline path needs, under the cache folder:
 * - `toolchain/vendor`: a cargo *directory source* of symlinks to Debian's
 *   crates (`/usr/share/cargo/registry`) and std's vendored crates;
 * - `toolchain/wit-bindgen-0.45.1`: a small crate standing in for wit-bindgen's
 *   runtime (Debian's copy lacks its prebuilt `cabi_realloc`, so its build
 *   script panics); the `wasi` 0.14 bindings need only that runtime.
 *
 * Known trap: `cargo test` on this path fails to link with `pthread_join` /
 * `pthread_detach` undefined (the 2022 wasi-libc has no pthread stubs;
 * libtest references them). Weak stubs returning ENOSYS (`pthread_stubs.c`)
 * are linked into every module, so crates without the SDK link too (the SDK
 * has its own), with libtest in the sysroot and one test per instance.
 *
 * @module
 */

import { WIT_BINDGEN_LIB, WIT_BINDGEN_TOML } from "./_wit_bindgen_shim.ts";
import { cacheDir } from "../paths.ts";
import { detectWasiCc, type WasiCc, wasiCcEnv } from "./wasi_cc.ts";
import { compileWasiObject, prepareMainRealloc } from "./main_realloc.ts";

/** Weak pthread_join / pthread_detach, so test binaries of crates without the SDK link. */
const PTHREAD_STUBS = new URL("./pthread_stubs.c", import.meta.url);
import { sha256 } from "../cache/sha256.ts";

/** A build that could not run or failed; `output` holds what the tools printed. */
export class BuildError extends Error {
  /**
   * @param message one line saying what failed
   * @param output the compiler's (or the detection's) full output
   */
  constructor(message: string, readonly output: string) {
    super(message);
    this.name = "BuildError";
  }
}

/**
 * A build refused before cargo ran, because a folder it would use is not a
 * real folder of the world (a link); `message` says which.
 */
export class BuildRefused extends BuildError {
  override name = "BuildRefused";
}

/** What every toolchain gives the build. */
interface ToolchainBase {
  /** The cargo executable to run. */
  cargo: string;
  /** The target triple to build for. */
  target: "wasm32-wasip2" | "wasm32-wasip1";
  /**
   * The `CARGO_TARGET_DIR` of this checkout's own crates (test plugins, the
   * codegen plugin). A world's builds never use it: each world has its own
   * (`build_folders.ts`).
   */
  targetDir: string;
  /** Environment variables to set for cargo. */
  env: Record<string, string>;
  /** Extra arguments for `cargo build` (unstable flags, `--config` flags). */
  cargoArgs: string[];
  /** The WASI C compiler handed to build scripts (in `env`), or null when none is installed. */
  cc: WasiCc | null;
}

/** A real `wasm32-wasip2` target: cargo produces components directly. */
export interface Wasip2Toolchain extends ToolchainBase {
  /** Which path this is. */
  kind: "wasip2";
  /** cargo's target: components straight out of the linker. */
  target: "wasm32-wasip2";
}

/** The offline stand-in: core modules for `wasm32-wasip1`, adapted afterwards. */
export interface OfflineToolchain extends ToolchainBase {
  /** Which path this is. */
  kind: "offline-wasip1";
  /** cargo's target: core modules, adapted to components with jco's preview-1 command adapter. */
  target: "wasm32-wasip1";
  /** Debian's rustc (`/usr/bin/rustc`). */
  rustc: string;
  /** Its version, e.g. `1.96.0`; rust-src must match it. */
  rustcVersion: string;
  /** The rust-src tree, e.g. `/usr/src/rustc-1.96.0`. */
  rustSrc: string;
  /** Debian's wasi-libc for the target. */
  wasiLibc: string;
  /** The `wasm-ld` linker. */
  wasmLd: string;
  /** The directory source of symlinks that replaces crates.io. */
  vendorDir: string;
  /** The stand-in `wit-bindgen` crate, wired in with `[patch.crates-io]`. */
  witBindgenDir: string;
  /**
   * The sysroot with std, panic_abort and libtest for the target, built once
   * (`sysroot.ts`); `cargoArgs` pass it to rustc. It may not exist yet.
   */
  sysroot: string;
  /** The target's rustflags without the sysroot (linker flags and objects). */
  rustflags: string[];
  /** cargo's arguments for building std itself into the sysroot (`-Zbuild-std`). */
  stdBuildArgs: string[];
}

/** The toolchain a build runs with; `kind` says which path it is. */
export type Toolchain = Wasip2Toolchain | OfflineToolchain;

const DEBIAN_RUSTC = "/usr/bin/rustc";
const DEBIAN_RUSTDOC = "/usr/bin/rustdoc";
const DEBIAN_CARGO = "/usr/bin/cargo";
const DEBIAN_REGISTRY = "/usr/share/cargo/registry";
const WASI_LIBC = "/usr/lib/wasm32-wasi";

let detected: Promise<Toolchain> | undefined;

/**
 * Detects the toolchain (once per process) and prepares it: a real
 * `wasm32-wasip2` target wins; otherwise the offline `wasm32-wasip1` path,
 * whose vendor folder and wit-bindgen stand-in are created in the cache.
 * Throws a {@link BuildError} when neither is installed.
 */
export function detectToolchain(): Promise<Toolchain> {
  if (!detected) {
    detected = detect();
    detected.catch(() => detected = undefined);
  }
  return detected;
}

async function detect(): Promise<Toolchain> {
  const cache = cacheDir();
  const cc = await detectWasiCc();
  const ccEnv = cc ? wasiCcEnv(cc) : {};
  if (await hasWasip2Target()) {
    return {
      kind: "wasip2",
      cargo: "cargo",
      target: "wasm32-wasip2",
      targetDir: `${cache}/target/wasip2`,
      env: ccEnv,
      cargoArgs: [],
      cc,
    };
  }
  const found = await findOffline(cc);
  if (typeof found === "string") {
    throw new BuildError(
      "No Rust toolchain for WASI components: run scripts/install-toolchain.sh",
      `No wasm32-wasip2 target (rustup target list --installed), and the offline path is incomplete:\n${found}`,
    );
  }
  const root = `${cache}/toolchain`;
  const vendorDir = await prepareVendor(root, [DEBIAN_REGISTRY, `${found.rustSrc}/library/vendor`]);
  const witBindgenDir = await prepareWitBindgen(root);
  const wasiLibc = WASI_LIBC;
  let mainRealloc: string, pthreadStubs: string;
  try {
    mainRealloc = await prepareMainRealloc(root, cc!);
    pthreadStubs = await compileWasiObject(root, cc!, PTHREAD_STUBS, "pthread_stubs");
  } catch (e) {
    throw new BuildError("the offline toolchain could not be prepared", String(e));
  }
  const rustflags = [
    "-C",
    "link-self-contained=no",
    "-L",
    wasiLibc,
    "-C",
    `link-arg=${wasiLibc}/crt1-command.o`,
    "-C",
    `link-arg=${mainRealloc}`,
    "-C",
    `link-arg=${pthreadStubs}`,
  ];
  const config = (key: string, value: string | string[]) => ["--config", `${key}=${toml(value)}`];
  const common = [
    "--offline",
    ...config("source.crates-io.replace-with", "sausage-vendor"),
    ...config("source.sausage-vendor.directory", vendorDir),
    ...config("target.wasm32-wasip1.linker", found.wasmLd),
  ];
  // Plugins' builds only: std's has no wit-bindgen, and cargo printed its "patch … was not used"
  // note among std's build lines, on every new machine's first `sausage new`.
  const patch = config("patch.crates-io.wit-bindgen.path", witBindgenDir);
  const withFlags = (flags: string[]) => [
    ...config("target.wasm32-wasip1.rustflags", flags),
    // Doc tests are linked by rustdoc, which does not get the rustflags.
    ...config("target.wasm32-wasip1.rustdocflags", flags),
  ];
  // std is built once per rustc (its full version, commit included).
  const print = (await output(found.rustc, ["-vV"])) ?? found.rustcVersion;
  const sysroot = `${root}/sysroot-${found.rustcVersion}-${(await sha256(print)).slice(0, 8)}`;
  return {
    kind: "offline-wasip1",
    cargo: DEBIAN_CARGO,
    target: "wasm32-wasip1",
    targetDir: `${cache}/target/offline-wasip1`,
    // RUSTDOC: `cargo test` runs a library's doc tests with rustdoc, which
    // must be the same version as the rustc that built std.
    env: { RUSTC: found.rustc, RUSTDOC: found.rustdoc, RUSTC_BOOTSTRAP: "1", ...ccEnv },
    cc,
    cargoArgs: [...common, ...patch, ...withFlags(["--sysroot", sysroot, ...rustflags])],
    stdBuildArgs: [...common, "-Zbuild-std=std,panic_abort,test", ...withFlags(rustflags)],
    ...found,
    wasiLibc,
    vendorDir,
    witBindgenDir,
    sysroot,
    rustflags,
  };
}

/** A TOML string or array of strings (JSON's escapes are valid TOML basic strings). */
function toml(value: string | string[]): string {
  return Array.isArray(value)
    ? `[${value.map((v) => JSON.stringify(v)).join(", ")}]`
    : JSON.stringify(value);
}

/** Runs a command; its trimmed stdout when it succeeds, `undefined` when it is missing or fails. */
async function output(cmd: string, args: string[]): Promise<string | undefined> {
  try {
    // In "/", not the process's working folder, which may be gone (wasi_cc.ts, `compiles`).
    const r = await new Deno.Command(cmd, { args, cwd: "/", stdout: "piped", stderr: "null" })
      .output();
    return r.success ? new TextDecoder().decode(r.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** True when the rustc on PATH has the `wasm32-wasip2` target installed. */
async function hasWasip2Target(): Promise<boolean> {
  const sysroot = await output("rustc", ["--print", "sysroot"]);
  if (sysroot && await exists(`${sysroot}/lib/rustlib/wasm32-wasip2/lib`)) return true;
  const installed = await output("rustup", ["target", "list", "--installed"]);
  return installed?.split("\n").some((line) => line.trim() === "wasm32-wasip2") ?? false;
}

/** Finds `name` in PATH (or takes an absolute path as is). */
async function which(name: string): Promise<string | undefined> {
  if (name.startsWith("/")) return await exists(name) ? name : undefined;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && await exists(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return undefined;
}

type OfflineTools = Pick<OfflineToolchain, "rustc" | "rustcVersion" | "rustSrc" | "wasmLd"> & {
  /** Debian's rustdoc, the same version as its rustc. */
  rustdoc: string;
};

/** The offline path's pieces, or a list of what is missing (one line each). */
async function findOffline(cc: WasiCc | null): Promise<OfflineTools | string> {
  const missing: string[] = [];
  // Every module links core/cargo/cabi_realloc.c (see main_realloc.ts).
  if (!cc) missing.push("clang with the WebAssembly target, and llvm-ar (clang, lld)");
  const version = (await output(DEBIAN_RUSTC, ["--version"]))?.match(/^rustc (\d+\.\d+\.\d+)/)?.[1];
  if (!version) missing.push(`${DEBIAN_RUSTC} (Debian package rustc-web)`);
  if (!await exists(DEBIAN_CARGO)) missing.push(`${DEBIAN_CARGO} (Debian package cargo-web)`);
  const sources: string[] = [];
  try {
    for await (const e of Deno.readDir("/usr/src")) {
      if (e.name.startsWith("rustc-") && await exists(`/usr/src/${e.name}/library/vendor`)) {
        sources.push(e.name);
      }
    }
  } catch { /* no /usr/src */ }
  let rustSrc = "";
  if (version && sources.includes(`rustc-${version}`)) {
    rustSrc = `/usr/src/rustc-${version}`;
  } else {
    const seen = sources.length ? ` (found ${sources.sort().join(", ")})` : "";
    missing.push(
      `/usr/src/rustc-${
        version ?? "<version>"
      }/library/vendor matching rustc${seen} (rust-web-src)`,
    );
  }
  if (version) {
    const sysroot = await output(DEBIAN_RUSTC, ["--print", "sysroot"]);
    if (!sysroot || !await exists(`${sysroot}/lib/rustlib/src/rust/library/Cargo.lock`)) {
      missing.push(`${sysroot ?? "/usr"}/lib/rustlib/src/rust/library (rust-web-src)`);
    }
  }
  for (const file of ["libc.a", "crt1-command.o"]) {
    if (!await exists(`${WASI_LIBC}/${file}`)) missing.push(`${WASI_LIBC}/${file} (wasi-libc)`);
  }
  const wasmLd = await which("/usr/bin/wasm-ld") ?? await which("wasm-ld");
  if (!wasmLd) missing.push("wasm-ld (lld)");
  if (!await hasCrate("serde_json")) {
    missing.push(`${DEBIAN_REGISTRY}/serde_json-* (librust-serde-json-dev)`);
  }
  if (missing.length) return missing.map((m) => `  missing: ${m}`).join("\n");
  return {
    rustc: DEBIAN_RUSTC,
    rustdoc: DEBIAN_RUSTDOC,
    rustcVersion: version!,
    rustSrc,
    wasmLd: wasmLd!,
  };
}

async function hasCrate(name: string): Promise<boolean> {
  try {
    for await (const e of Deno.readDir(DEBIAN_REGISTRY)) {
      if (e.name.startsWith(`${name}-`)) return true;
    }
  } catch { /* no registry */ }
  return false;
}

/**
 * Makes `root/vendor` a directory source over the crate folders in `from`
 * (a later folder wins a name clash: std's copies match std's lockfile).
 * `vendor` is a symlink to `vendor-<hash of the set>`, swapped atomically
 * when the set changes, so concurrent builds never see a half-made folder.
 */
async function prepareVendor(root: string, from: string[]): Promise<string> {
  const crates = new Map<string, string>();
  for (const dir of from) {
    try {
      for await (const e of Deno.readDir(dir)) {
        if (await exists(`${dir}/${e.name}/.cargo-checksum.json`)) {
          crates.set(e.name, `${dir}/${e.name}`);
        }
      }
    } catch { /* folder absent: fewer crates */ }
  }
  const list = [...crates].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  const key = (await sha256(list.map(([n, t]) => `${n}\t${t}\n`).join(""))).slice(0, 16);
  const link = `${root}/vendor`;
  const real = `vendor-${key}`;
  const current = await Deno.readLink(link).catch(() => undefined);
  if (current === real && await exists(`${root}/${real}`)) return link;

  await Deno.mkdir(root, { recursive: true });
  if (!await exists(`${root}/${real}`)) {
    const tmp = `${root}/${real}.tmp-${crypto.randomUUID()}`;
    await Deno.mkdir(tmp);
    for (const [name, target] of list) await Deno.symlink(target, `${tmp}/${name}`);
    await Deno.rename(tmp, `${root}/${real}`).catch(() => Deno.remove(tmp, { recursive: true }));
  }
  const st = await Deno.lstat(link).catch(() => undefined);
  if (st?.isDirectory) await Deno.remove(link, { recursive: true }).catch(() => {}); // made by hand
  const tmpLink = `${link}.tmp-${crypto.randomUUID()}`;
  await Deno.symlink(real, tmpLink);
  await Deno.rename(tmpLink, link);
  for await (const e of Deno.readDir(root)) {
    if (e.name.startsWith("vendor-") && e.name !== real && !e.name.includes(".tmp-")) {
      await Deno.remove(`${root}/${e.name}`, { recursive: true }).catch(() => {});
    }
  }
  return link;
}

/** Writes `text` to `path` unless it already holds it (temp file + rename). */
async function writeIfChanged(path: string, text: string): Promise<void> {
  const old = await Deno.readTextFile(path).catch(() => undefined);
  if (old === text) return;
  const tmp = `${path}.tmp-${crypto.randomUUID()}`;
  await Deno.writeTextFile(tmp, text);
  await Deno.rename(tmp, path);
}

/** Creates (or refreshes) the wit-bindgen stand-in crate; returns its folder. */
async function prepareWitBindgen(root: string): Promise<string> {
  const dir = `${root}/wit-bindgen-0.45.1`;
  await Deno.mkdir(`${dir}/src`, { recursive: true });
  await writeIfChanged(`${dir}/Cargo.toml`, WIT_BINDGEN_TOML);
  await writeIfChanged(`${dir}/src/lib.rs`, WIT_BINDGEN_LIB);
  return dir;
}
