/**
 * Every crate is compiled once per world and profile (issue 40): `cargo
 * test` in a plugin folder and `sausage build` share the world's build
 * folder, flags and SDK copy, so what `cargo test` compiled `build` does
 * not compile again. From an empty build cache (a new `XDG_CACHE_HOME`
 * whose `sausage/toolchain` is a copy of the machine's: std's sysroot is
 * built once per toolchain, minutes this test does not need to repeat), cargo's
 * `Compiling <crate>` lines are counted across `new`, `cargo test` and
 * `build`: serde and the SDK once for the tests' profile and once for the
 * release, the plugin's own crate aside (builds give it a `--cfg` of its
 * own).
 */

import { strict as assert } from "node:assert";
import { sausageWith } from "./helpers/cli.ts";
import { detectToolchain } from "../core/cargo/toolchain.ts";
import { cacheDir } from "../core/paths.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** How many times each crate was compiled in `text` (cargo's `Compiling <name> v…` lines). */
function compiled(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, name] of text.matchAll(/^\s*Compiling (\S+) v/gm)) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

Deno.test({
  name: "new, cargo test, build from an empty build cache: each crate once per profile",
  ...opts,
}, async () => {
  await detectToolchain(); // the machine's toolchain folder exists
  const home = await Deno.makeTempDir({ prefix: "sausage-build-once-" });
  await Deno.mkdir(`${home}/sausage`);
  // A copy, not a link: the build sandbox binds the toolchain's folder by its real path.
  const copied = await new Deno.Command("cp", {
    args: ["-a", `${cacheDir()}/toolchain`, `${home}/sausage/toolchain`],
  }).output();
  assert.ok(copied.success, new TextDecoder().decode(copied.stderr));
  const env = { XDG_CACHE_HOME: home };
  const world = `${home}/w`;
  try {
    const made = await sausageWith({ env }, "new", world);
    assert.equal(made.code, 0, made.stderr);
    const source = `${world}/plugins/hello/source`;
    const test = await new Deno.Command("cargo", {
      args: ["test"],
      cwd: source,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const testErr = new TextDecoder().decode(test.stderr);
    assert.ok(test.success, testErr);
    const build = await sausageWith({ env }, "build", world, "hello");
    assert.equal(build.code, 0, build.stderr);

    const byTest = compiled(testErr);
    const byBuild = compiled(build.stderr);
    for (const crate of ["serde", "serde_json", "sausage-plugin", "sausage-plugin-macros"]) {
      assert.equal(byTest.get(crate), 1, `cargo test compiled ${crate} once:\n${testErr}`);
      // The build compiles it once more, for the release profile only (its tests reuse cargo test's).
      assert.equal(
        byBuild.get(crate),
        1,
        `build compiled ${crate} once (release):\n${build.stderr}`,
      );
    }
    // Cargo's lines once each: a crate compiled twice by the build is the plugin's own only
    // (its tests' profile and the release).
    for (const [crate, n] of byBuild) {
      assert.ok(n === 1 || (crate === "hello" && n === 2), `${crate} ${n} times:\n${build.stderr}`);
    }
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
