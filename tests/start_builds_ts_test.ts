/**
 * `sausage run` builds TypeScript plugins at start through `cargo.build`'s
 * path, as it builds Rust ones (`cli/start_builds.ts`): one with no
 * `plugin.wasm` is tested, built and activated; one whose test fails is not
 * installed and its calls answer with the tests' output; an unchanged source
 * is not built again (its content is stamped, `source_stamp.ts`); a changed
 * one is, and its new version answers.
 */

import { strict as assert } from "node:assert";
import { sausage } from "./helpers/cli.ts";
import { makeWorld } from "./helpers/world.ts";
import { start, waitFor } from "./helpers/author.ts";

/** Runs the world headless until it is up, gives its stderr to `body`, then stops it. */
async function running(world: string, body: (stderr: string) => Promise<void>) {
  const run = start("run", world, "--headless");
  try {
    await waitFor(run.stderr, /sausage: running /);
    await body(run.stderr());
  } finally {
    run.child.kill("SIGINT");
    await run.child.status;
  }
}

/** A test that fails: `greet` counts 1, not 7. */
const FAILING_TEST = `import { assertEquals } from "sausage";
import { greet } from "./plugin";

/** A wrong expectation. */
export function counts_wrong() {
  assertEquals(greet({}).count, 7);
}
`;

Deno.test({
  name:
    "run at start tests, builds and activates TypeScript plugins as Rust ones: a failing test keeps one out; an unchanged source is not built again",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const world = await makeWorld({ files: { "config/boot.json": "[]" } });
  try {
    for (const name of ["tsgood", "tsbad"]) {
      const made = await sausage("new", world, name, "--lang", "ts");
      assert.equal(made.code, 0, made.stderr);
    }
    await Deno.writeTextFile(`${world}/plugins/tsbad/source/more_test.ts`, FAILING_TEST);

    await running(world, async (out) => {
      assert.match(out, /tsbad, tsgood have no plugin\.wasm: testing, building, checking/);
      assert.match(out, /test plugin_test::greets_by_name \.\.\. ok/); // the tests ran, as for Rust
      assert.match(out, /tsgood is active: 2 tests passed/);
      assert.match(
        out,
        /^sausage: tsbad was not built: 1 of 3 tests failed; it has no version before, so its calls answer with this/m,
      );
      await assert.rejects(Deno.stat(`${world}/plugins/tsbad/plugin.wasm`));
      const bad = await sausage("call", world, "tsbad.greet", "{}", "--json");
      assert.equal(bad.code, 1);
      const error = JSON.parse(bad.stderr);
      assert.match(error.message, /tsbad is not installed, so it cannot be called/);
      assert.match(error.data.output, /expected 7, got 1/);
      const good = await sausage("call", world, "tsgood.greet", '{"name": "Ada"}');
      assert.equal(good.code, 0, good.stderr);
      assert.equal(JSON.parse(good.stdout).text, "Hello, Ada!");
    });

    // Unchanged (a touch changes no content): tsgood is not built again; tsbad is tried again.
    const source = `${world}/plugins/tsgood/source/plugin.ts`;
    await Deno.utime(source, new Date(), new Date());
    await running(world, (out) => {
      assert.match(out, /tsbad has no plugin\.wasm/);
      assert.doesNotMatch(out, /tsgood/, out);
      return Promise.resolve();
    });

    // Changed: tested, built, activated at start; the new version answers.
    await Deno.remove(`${world}/plugins/tsbad`, { recursive: true });
    const text = await Deno.readTextFile(source);
    await Deno.writeTextFile(source, text.replace("`Hello, ${name}!`", "`Hi, ${name}!`"));
    await Deno.writeTextFile(
      `${world}/plugins/tsgood/source/plugin_test.ts`,
      (await Deno.readTextFile(`${world}/plugins/tsgood/source/plugin_test.ts`))
        .replace('"Hello, Ada!"', '"Hi, Ada!"'),
    );
    await running(world, async (out) => {
      assert.match(out, /tsgood's source changed since its plugin\.wasm was built/);
      assert.match(out, /tsgood is active: 2 tests passed/);
      const hi = await sausage("call", world, "tsgood.greet", '{"name": "Bo"}');
      assert.equal(JSON.parse(hi.stdout).text, "Hi, Bo!");
    });
  } finally {
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});
