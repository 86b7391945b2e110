/**
 * The compile-time rules of the SDK (section 13), pinned as in trybuild:
 * each `sdk/tests/ui/<case>.rs` is a plugin that breaks one rule, and
 * `<case>.stderr` holds the error it must get, with the file, line and
 * column of the offending token. Every case builds alone, as the one binary
 * of the crate that `sdk/tests/ui/Cargo.toml` describes; the build must fail
 * with that error, and with no other.
 */

import { strict as assert } from "node:assert";
import { BuildError, buildPlugin } from "../core/cargo/cargo_build.ts";
import { cacheDir } from "../core/paths.ts";
import { existsSync } from "node:fs";

const UI = decodeURIComponent(new URL("./tests/ui", import.meta.url).pathname);

/** The errors of rustc's output (not cargo's closing "could not compile"). */
function errorsOf(output: string): string[] {
  return output.split("\n").filter((l) =>
    /^error(\[E\d+\])?: /.test(l) && !/^error: could not compile/.test(l)
  );
}

/**
 * Makes the crate of one case in the cache: the shared manifest with the
 * case as its only binary, `<case>.rs` beside it (so errors name that file).
 */
async function caseCrate(name: string): Promise<string> {
  const dir = `${cacheDir()}/sdk-ui/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  const manifest = await Deno.readTextFile(`${UI}/Cargo.toml`);
  await Deno.writeTextFile(
    `${dir}/Cargo.toml`,
    `${manifest}\n[[bin]]\nname = "${name}"\npath = "${name}.rs"\n`,
  );
  await Deno.copyFile(`${UI}/${name}.rs`, `${dir}/${name}.rs`);
  return dir;
}

const cases = [...Deno.readDirSync(UI)]
  .filter((e) => e.isFile && e.name.endsWith(".rs"))
  .map((e) => e.name.slice(0, -".rs".length))
  .sort();

Deno.test("ui: every case has its expected .stderr, and there are cases", () => {
  assert.ok(cases.length > 0, `no <case>.rs in ${UI}`);
  const missing = cases.filter((c) => !existsSync(`${UI}/${c}.stderr`));
  assert.deepEqual(missing, [], "cases without a .stderr");
});

for (const name of cases) {
  Deno.test(`ui: ${name.replaceAll("_", " ")} is a compile error at the offending token`, async () => {
    const expected = (await Deno.readTextFile(`${UI}/${name}.stderr`))
      .split("\n").map((l) => l.trim()).filter(Boolean);
    const dir = await caseCrate(name);
    const error = await buildPlugin(dir, `${dir}/${name}.wasm`).then(() => undefined, (e) => e);
    assert.ok(error instanceof BuildError, `${name} built, but must fail: ${error}`);
    for (const line of expected) {
      assert.ok(
        error.output.includes(line),
        `missing ${JSON.stringify(line)} in:\n${error.output}`,
      );
    }
    const wanted = expected.filter((l) => /^error/.test(l));
    assert.deepEqual(errorsOf(error.output), wanted, `other errors too:\n${error.output}`);
  });
}
