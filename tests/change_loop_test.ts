/**
 * The loop by which a world changes itself (sections 10–11), end to end with
 * the SDK examples: build `notes` with `cargo.build` and activate it; rename
 * `notes.add(text)` to `add(body)` and see the activation refused because
 * `consumer` imports `add(text)`; activate consumer and provider together;
 * revert; copy a breaking version by hand and see it in the graph.
 */

import { strict as assert } from "node:assert";
import { eventually, TestHost } from "./helpers/host.ts";
import { copySource } from "./helpers/world.ts";
import type { Entry } from "../core/journal/journal.ts";

const EXAMPLES = decodeURIComponent(new URL("../examples", import.meta.url).pathname);

async function edit(path: string, edits: [string, string][]): Promise<void> {
  let text = await Deno.readTextFile(path);
  for (const [from, to] of edits) {
    assert.ok(text.includes(from), `${path} has ${from}`);
    text = text.replaceAll(from, to);
  }
  await Deno.writeTextFile(path, text);
}

interface Built {
  wasm: string;
  tests: { passed: number; failed: number };
  warnings: string[];
}

Deno.test({
  name:
    "build, activate, a refused breaking change with its counterexample, activation together, revert, a copy by hand",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const h = await TestHost.start({}, { watch: true });
  try {
    // Package names of this run only, so parallel runs never share a build.
    for (const name of ["notes", "www", "consumer"]) {
      await copySource(`${EXAMPLES}/${name}`, `${h.root}/plugins/${name}/source`);
    }
    // The consumer documents its use of notes.add with an example, as a person would.
    const imports = `${h.root}/plugins/consumer/source/imports/notes.json`;
    const doc = JSON.parse(await Deno.readTextFile(imports));
    const add = doc.methods.find((m: { name: string }) => m.name === "add");
    add.examples = [{
      name: "milk",
      params: [{ name: "text", value: "milk" }],
      result: { name: "added", value: { count: 1 } },
    }];
    await Deno.writeTextFile(imports, JSON.stringify(doc, null, 2));

    const build = (plugin: string) => h.result<Built>("cargo.build", { plugin });
    const notes1 = await build("notes");
    assert.deepEqual(
      [notes1.tests.passed, notes1.tests.failed],
      [2, 0],
      "notes' own tests ran and were counted",
    );
    await h.result("core.activate", { plugin: "notes", wasm: notes1.wasm });
    const www = await build("www");
    await h.result("core.activate", { plugin: "www", wasm: www.wasm });
    const consumer1 = await build("consumer");
    await h.result("core.activate", { plugin: "consumer", wasm: consumer1.wasm });
    assert.equal(await h.result("consumer.note", { text: "milk" }), 1);

    // Rename text -> body in notes.add (and in its own tests).
    await edit(`${h.root}/plugins/notes/source/src/main.rs`, [
      ["    text: String,", "    body: String,"],
      ["AddParams { text }", "AddParams { body: text }"],
      ['AddParams { text: "milk".into() }', 'AddParams { body: "milk".into() }'],
      ['AddParams { text: "eggs".into() }', 'AddParams { body: "eggs".into() }'],
    ]);
    const notes2 = await build("notes");
    const refused = await h.call("core.activate", { plugin: "notes", wasm: notes2.wasm });
    assert.equal(refused.error?.code, -32003);
    assert.match(refused.error!.message, /^notes was not activated: 1 consumer breaks\./);
    assert.match(refused.error!.message, /consumer imports notes\.add\(text: string\)/);
    assert.match(
      refused.error!.message,
      /Counterexample: \{"text": "milk"\} is not valid for the new params\./,
    );
    const problem =
      (refused.error!.data as { problems: { counterexample: unknown }[] }).problems[0];
    assert.deepEqual(problem.counterexample, { text: "milk" });
    assert.deepEqual(
      await h.result("notes.add", { text: "still v1" }),
      { count: 2 },
      "nothing changed",
    );

    // The consumer follows: import the new document, use `body`, activate both together.
    const next = JSON.parse(await Deno.readTextFile(imports));
    const nextAdd = next.methods.find((m: { name: string }) => m.name === "add");
    nextAdd.params[0].name = "body";
    delete nextAdd.examples;
    await Deno.writeTextFile(imports, JSON.stringify(next, null, 2));
    await edit(`${h.root}/plugins/consumer/source/src/main.rs`, [[
      "notes::AddParams { text }",
      "notes::AddParams { body: text }",
    ]]);
    const consumer2 = await build("consumer");
    await h.result("core.activate", {
      plugins: [{ plugin: "notes", wasm: notes2.wasm }, {
        plugin: "consumer",
        wasm: consumer2.wasm,
      }],
    });
    assert.equal(await h.result("consumer.note", { text: "eggs" }), 3);

    // Revert notes alone: the old notes.add(text) would break the new consumer.
    const back = await h.call("core.revert", { plugin: "notes" });
    assert.equal(back.error?.code, -32003);
    await h.result("core.revert", { plugin: "consumer", force: true });
    await h.result("core.revert", { plugin: "notes" });
    assert.equal(await h.result("consumer.note", { text: "ham" }), 4);

    // A breaking copy by hand skips the checks: the graph and the journal show it.
    await Deno.copyFile(`${h.root}${notes2.wasm}`, `${h.root}/plugins/notes/plugin.wasm`);
    const entry = await eventually(
      async () => (await h.result<Entry[]>("core.log", { grep: "broken-import" }))[0],
      "the journal entry",
      30_000,
    );
    assert.equal(JSON.parse(entry.line).consumer, "consumer");
    const graph = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")),
    );
    const edge = graph.imports.find((i: { consumer: string; provider: string }) =>
      i.consumer === "consumer" && i.provider === "notes"
    );
    assert.equal(edge.status, "broken");
  } finally {
    await h.close();
  }
});
