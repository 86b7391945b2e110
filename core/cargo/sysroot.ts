/**
 * The offline toolchain's std for `wasm32-wasip1`, built once per toolchain
 * and shared by every build path: `cargo.build`'s tests and release build,
 * builds at start, and `cargo test` in a plugin folder (`author_config.ts`).
 * Debian ships std's source, not its `wasm32-wasip1` libraries, so std,
 * `panic_abort` and libtest are built from it with `-Zbuild-std` on an empty
 * crate, by the host, outside the build sandbox (std's build runs no code
 * of any world), and the libraries are put in a sysroot folder in the cache:
 * `toolchain/sysroot-<rustc version>-<hash of rustc -vV>/lib/rustlib/wasm32-wasip1/lib`.
 * Builds then pass `--sysroot` to rustc instead of `-Zbuild-std`. The folder
 * is made in a temporary folder and renamed into place, and is bound
 * read-only into every build sandbox.
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { streamLines as lines } from "../../rpc/line_splitter.ts";
import { BuildError, type OfflineToolchain } from "./toolchain.ts";
import { baseEnv } from "./build_env.ts";

/** True when `path` exists. */
async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** One sysroot build per process at a time. */
let building: Promise<string> | undefined;

/** True when the toolchain's sysroot is complete (std can be linked from it). */
export function sysrootReady(tc: OfflineToolchain): Promise<boolean> {
  return exists(`${tc.sysroot}/lib/rustlib/${tc.target}/lib`);
}

/**
 * Makes sure the sysroot of `tc` exists, building std once when it is
 * missing (a minute or more on two cores; `onProgress` is told why).
 * Resolves with the sysroot folder.
 */
export function prepareSysroot(
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
  const dest = tc.sysroot;
  if (await sysrootReady(tc)) return dest;
  onProgress?.(
    "sausage: building Rust's std for wasm32-wasip1 (once for this toolchain, shared by every " +
      "build and by cargo in plugin folders; a minute or more)",
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
    ...tc.stdBuildArgs,
  ];
  const env = {
    ...baseEnv(tc),
    HOME: Deno.env.get("HOME") ?? "/tmp",
    CARGO_TARGET_DIR: `${work}/target`,
  };
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
    throw new BuildError("Rust's std could not be built for wasm32-wasip1", errors.join("\n"));
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
