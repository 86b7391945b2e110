/**
 * `sausage dev` follows the world, not the list it started with (issue 40):
 * a plugin made with `sausage new` while it runs is tested, built,
 * activated and watched; one renamed is watched under its new name; one
 * removed is no longer watched. No restart.
 */

import { strict as assert } from "node:assert";
import { sausage } from "./helpers/cli.ts";
import { start, waitFor } from "./helpers/author.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({ name: "dev: a plugin added, renamed, removed while it runs", ...opts }, async () => {
  const world = `${await Deno.makeTempDir()}/w`;
  assert.equal((await sausage("new", world)).code, 0);
  const dev = start("dev", world);
  try {
    // Built at start, through its tests.
    await waitFor(dev.stderr, /dev: running .*watching the source of hello/);
    assert.match(dev.stderr(), /hello is active: 2 tests passed/);

    // A new plugin while dev runs: built, tested, activated, answering.
    let mark = dev.stderr().length;
    const made = await sausage("new", world, "second");
    assert.equal(made.code, 0, made.stderr);
    await waitFor(dev.stderr, /second is active: 2 tests passed/, mark);
    assert.match(dev.stderr().slice(mark), /second: new in plugins\/, watched/);
    const hi = await sausage("call", world, "second.greet", '{"name": "Ada"}');
    assert.equal(hi.code, 0, hi.stderr);
    assert.deepEqual(JSON.parse(hi.stdout), { text: "Hello, Ada!" });

    // ...and watched: an edit of it is built and answers.
    mark = dev.stderr().length;
    const main = `${world}/plugins/second/source/src/main.rs`;
    await Deno.writeTextFile(main, (await Deno.readTextFile(main)).replaceAll("Hello, ", "Hey, "));
    await waitFor(dev.stderr, /second is active/, mark);
    const hey = await sausage("call", world, "second.greet", '{"name": "Ada"}');
    assert.deepEqual(JSON.parse(hey.stdout), { text: "Hey, Ada!" });

    // Renamed: the old name is dropped, the new one watched (its edits build).
    mark = dev.stderr().length;
    await Deno.rename(`${world}/plugins/second`, `${world}/plugins/third`);
    await waitFor(dev.stderr, /third: new in plugins\/, watched/, mark);
    assert.match(dev.stderr().slice(mark), /second: gone from plugins\/, no longer watched/);
    mark = dev.stderr().length;
    const third = `${world}/plugins/third/source/src/main.rs`;
    await Deno.writeTextFile(third, (await Deno.readTextFile(third)).replaceAll("Hey, ", "Ho, "));
    await waitFor(dev.stderr, /third is active/, mark);
    const ho = await sausage("call", world, "third.greet", '{"name": "Ada"}');
    assert.equal(ho.code, 0, ho.stderr);
    assert.deepEqual(JSON.parse(ho.stdout), { text: "Ho, Ada!" });

    // Removed: no longer watched.
    mark = dev.stderr().length;
    await Deno.remove(`${world}/plugins/third`, { recursive: true });
    await waitFor(dev.stderr, /third: gone from plugins\/, no longer watched/, mark);
  } finally {
    dev.child.kill("SIGINT");
    await dev.child.status;
    await dev.read;
  }
});
