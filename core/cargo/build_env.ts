/**
 * The environment a build runs with: an allow-list set by the host, never
 * the host's own environment. Cargo, rustc and the tools they start get the
 * toolchain's variables (`RUSTC`, `RUSTDOC`, `RUSTC_BOOTSTRAP`, the WASI C
 * compiler's `CC_…` / `AR_…` / `CFLAGS_…`), a fixed `PATH`, the host's
 * locale (`LANG`, `LC_*`), and the `CARGO_*` variables set here; the build
 * sandbox adds `HOME`, `CARGO_HOME`, `TMPDIR` (all in its private `/tmp`) and
 * `SAUSAGE_CACHE_DIR` (the test runner's cache). No token, key or other
 * variable of the host reaches a build script, a proc macro or a test: a
 * guest writes build scripts, and a build script could hand what it sees to
 * the world.
 *
 * @module
 */

import type { Toolchain } from "./toolchain.ts";

/** The host's variables that pass unchanged: the locale only. */
const PASSED = /^(LANG|LANGUAGE|LC_[A-Z]+)$/;

/** The `PATH` of a build (plus rustup's `cargo` folder on the wasip2 path). */
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The variables every cargo run of `tc` gets: the locale, a fixed `PATH`,
 * the toolchain's own variables, and cargo's colour off.
 */
export function baseEnv(tc: Toolchain): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (PASSED.test(name)) env[name] = value;
  }
  let path = SYSTEM_PATH;
  if (tc.kind === "wasip2") {
    // rustup's cargo and rustc proxies, and which toolchain they pick.
    const home = Deno.env.get("HOME") ?? "/root";
    path = `${Deno.env.get("CARGO_HOME") ?? `${home}/.cargo`}/bin:${path}`;
    env.RUSTUP_HOME = Deno.env.get("RUSTUP_HOME") ?? `${home}/.rustup`;
    const pinned = Deno.env.get("RUSTUP_TOOLCHAIN");
    if (pinned) env.RUSTUP_TOOLCHAIN = pinned;
  }
  return { ...env, PATH: path, ...tc.env, CARGO_TERM_COLOR: "never" };
}

/** The environment of a cargo run of `tc` whose target folder is `targetDir`. */
export function cargoEnv(tc: Toolchain, targetDir: string): Record<string, string> {
  return { ...baseEnv(tc), CARGO_TARGET_DIR: targetDir };
}
