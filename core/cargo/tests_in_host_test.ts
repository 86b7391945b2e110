import { strict as assert } from "node:assert";
import { type BuiltTest, packageOf, runningLine, testEnv } from "./tests_in_host.ts";

const unit: BuiltTest = {
  name: "my-plugin",
  kind: "bin",
  path: "/c/target/wasm32-wasip1/debug/deps/my_plugin-0a1b.wasm",
  src: "/w/plugins/p/source/src/main.rs",
  manifest: "/w/plugins/p/source/Cargo.toml",
  pkg: { name: "my-plugin", version: "1.2.3-beta.1" },
};

Deno.test("a package id gives the package's name and version, in both of cargo's forms", () => {
  assert.deepEqual(packageOf("path+file:///w/plugins/p/source#my-plugin@1.2.3"), {
    name: "my-plugin",
    version: "1.2.3",
  });
  // A package named as its folder: cargo leaves the name out.
  assert.deepEqual(packageOf("path+file:///w/plugins/hello#0.1.0"), {
    name: "hello",
    version: "0.1.0",
  });
  assert.deepEqual(packageOf("hello 0.1.0 (path+file:///w/plugins/hello)"), {
    name: "hello",
    version: "0.1.0",
  });
});

Deno.test("a test binary run in the host sees the variables cargo gives it at run time", () => {
  const env = testEnv(unit);
  assert.equal(env.CARGO_MANIFEST_DIR, "/w/plugins/p/source");
  assert.equal(env.CARGO_MANIFEST_PATH, "/w/plugins/p/source/Cargo.toml");
  assert.equal(env.CARGO_PKG_NAME, "my-plugin");
  assert.equal(env.CARGO_CRATE_NAME, "my_plugin");
  assert.deepEqual(
    [env.CARGO_PKG_VERSION_MAJOR, env.CARGO_PKG_VERSION_MINOR, env.CARGO_PKG_VERSION_PATCH],
    ["1", "2", "3"],
  );
  assert.equal(env.CARGO_PKG_VERSION_PRE, "beta.1");
});

Deno.test("each binary is announced with cargo's Running line", () => {
  assert.equal(
    runningLine(unit),
    `     Running unittests src/main.rs (${unit.path})`,
  );
  assert.equal(
    runningLine({
      ...unit,
      kind: "test",
      name: "integration",
      src: "/w/plugins/p/source/tests/integration.rs",
    }),
    `     Running tests/integration.rs (${unit.path})`,
  );
});
