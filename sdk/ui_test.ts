/**
 * The compile-time rules of the SDK (section 13), pinned: each folder in
 * `sdk/tests/ui/` is a plugin that breaks one rule, and its
 * `expected.stderr` holds the error it must get, with the file, line and
 * column of the offending token. The build must fail with that error, and
 * with no other.
 */

import { strict as assert } from "node:assert";
import { BuildError, buildPlugin } from "../core/cargo/cargo_build.ts";
import { cacheDir } from "../core/paths.ts";

const UI = decodeURIComponent(new URL("./tests/ui", import.meta.url).pathname);

/** The errors of rustc's output (not cargo's closing "could not compile"). */
function errorsOf(output: string): string[] {
  return output.split("\n").filter((l) =>
    /^error(\[E\d+\])?: /.test(l) && !/^error: could not compile/.test(l)
  );
}

for (const entry of [...Deno.readDirSync(UI)].sort((a, b) => a.name < b.name ? -1 : 1)) {
  if (!entry.isDirectory) continue;
  const dir = `${UI}/${entry.name}`;
  Deno.test(`ui: ${entry.name.replaceAll("_", " ")} is a compile error at the offending token`, async () => {
    const expected = (await Deno.readTextFile(`${dir}/expected.stderr`))
      .split("\n").map((l) => l.trim()).filter(Boolean);
    const error = await buildPlugin(dir, `${cacheDir()}/sdk-ui/${entry.name}.wasm`).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof BuildError, `${entry.name} built, but must fail: ${error}`);
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
