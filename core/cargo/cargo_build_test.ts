import { strict as assert } from "node:assert";
import { BuildError, buildPlugin } from "./cargo_build.ts";
import { detectToolchain } from "./toolchain.ts";

const PROBE = decodeURIComponent(new URL("../../tests/plugins/probe", import.meta.url).pathname);

/** The first bytes of a component (a core module has version 01 00 00 00 instead). */
const COMPONENT_MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

/** Writes a one-file binary crate into a new temporary folder; returns the folder. */
async function scratchCrate(name: string, main: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: `sausage-${name}-` });
  await Deno.mkdir(`${dir}/src`);
  await Deno.writeTextFile(
    `${dir}/Cargo.toml`,
    `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n`,
  );
  await Deno.writeTextFile(`${dir}/src/main.rs`, main);
  return dir;
}

Deno.test("buildPlugin turns the probe's Rust source into a WASI component", async () => {
  const out = await Deno.makeTempDir({ prefix: "sausage-build-" });
  try {
    const progress: string[] = [];
    const result = await buildPlugin(PROBE, `${out}/probe.wasm`, {
      onProgress: (line) => progress.push(line),
    });
    assert.equal(result.wasm, `${out}/probe.wasm`);
    assert.equal(result.toolchain, (await detectToolchain()).kind);
    const bytes = await Deno.readFile(result.wasm);
    assert.deepEqual([...bytes.subarray(0, 8)], COMPONENT_MAGIC);
    assert.ok(progress.some((line) => /\bFinished\b/.test(line)), progress.join("\n"));
    assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name), ["probe.wasm"]);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("buildPlugin throws a BuildError with the compiler's text on a syntax error", async () => {
  const dir = await scratchCrate("sausage_broken_fixture", "fn main() {\n    let x = ;\n}\n");
  try {
    await assert.rejects(buildPlugin(dir, `${dir}/out.wasm`), (e) => {
      assert.ok(e instanceof BuildError);
      assert.equal(e.message, `cargo build failed for ${dir}`);
      assert.match(e.output, /error: expected expression, found `;`/);
      assert.match(e.output, /src\/main\.rs:2:13/);
      return true;
    });
    await assert.rejects(Deno.stat(`${dir}/out.wasm`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buildPlugin returns the compiler's warnings and still builds", async () => {
  const dir = await scratchCrate(
    "sausage_warning_fixture",
    "fn main() {\n    let unused = 1;\n}\n",
  );
  try {
    const result = await buildPlugin(dir, `${dir}/out.wasm`);
    assert.equal(result.warnings.length, 1, result.warnings.join("\n"));
    assert.match(result.warnings[0], /unused variable: `unused`/);
    const bytes = await Deno.readFile(result.wasm);
    assert.deepEqual([...bytes.subarray(0, 8)], COMPONENT_MAGIC);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buildPlugin throws a BuildError when the folder has no Cargo.toml", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sausage-empty-" });
  try {
    await assert.rejects(buildPlugin(dir, `${dir}/out.wasm`), (e) => {
      assert.ok(e instanceof BuildError);
      assert.equal(e.message, `cargo build failed for ${dir}`);
      assert.match(e.output, /Cargo\.toml: not found/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
