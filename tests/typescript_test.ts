/**
 * TypeScript plugins (docs/languages.md): `sausage new --lang ts` and
 * `sausage build` make a plugin whose document comes from its types and doc
 * comments, run by the Duktape engine on the preview-1 binding; the same
 * error codes, state files and structured logs as the SDK's; typed clients
 * from `sausage import`.
 */

import { strict as assert } from "node:assert";
import { sausage } from "./helpers/cli.ts";
import { makeWorld } from "./helpers/world.ts";
import { builtCrate } from "./helpers/plugins.ts";
import { start, waitFor } from "./helpers/author.ts";
import { checkedDocument } from "../core/activation/discover_document.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "new --lang ts and build: a TypeScript plugin with its document from its types",
  ...opts,
}, async () => {
  const root = await makeWorld({ files: { "config/boot.json": "[]" } });
  try {
    const made = await sausage("new", root, "tsgreet", "--lang", "ts");
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /made the TypeScript plugin tsgreet/);
    const built = await sausage("build", root, "tsgreet");
    assert.equal(built.code, 0, built.stderr);
    assert.match(built.stderr, /tsgreet is active: 2 tests passed/);
    // The tests' binary runs under sausage test, as a Rust test binary does.
    const testBinary = `${root}/state/cargo/builds/1/tsgreet.tests.wasm`;
    const listed = await sausage("test", testBinary, "--list");
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      /plugin_test::greets_by_name: test\nplugin_test::refuses_long_names: test/,
    );
    const greeted = await sausage("call", root, "tsgreet.greet", '{"name": "Ada"}');
    assert.equal(greeted.code, 0, greeted.stderr);
    assert.deepEqual(JSON.parse(greeted.stdout), { text: "Hello, Ada!", count: 1 });
    assert.equal(await Deno.readTextFile(`${root}/state/tsgreet/greetings`), "1");
    const again = await sausage("call", root, "tsgreet.greet");
    assert.deepEqual(JSON.parse(again.stdout), { text: "Hello, world!", count: 2 });

    const doc = await sausage("methods", root, "tsgreet", "--json");
    const document = checkedDocument("tsgreet", JSON.parse(doc.stdout));
    const greet = document.methods[0];
    assert.equal(greet.name, "greet");
    assert.equal(greet.summary, "Greet someone by name.");
    assert.equal(greet.description, "Counts the greetings in the plugin's state folder.");
    assert.deepEqual(greet.params, [{
      name: "name",
      required: false,
      description: "Who to greet (default: world).",
      schema: { type: "string" },
    }]);
    assert.deepEqual(greet.result?.schema, {
      type: "object",
      properties: {
        text: { type: "string", description: "The text." },
        count: { type: "integer", description: "How many greetings so far, this one included." },
      },
      required: ["text", "count"],
    });

    // Params are checked against the types; a thrown RpcError is the answer.
    const wrong = await sausage("call", root, "tsgreet.greet", '{"name": 5}', "--json");
    assert.match(wrong.stdout + wrong.stderr, /-32602/);
    assert.match(wrong.stdout + wrong.stderr, /param \\?"name\\?" must be string/);
    const long = await sausage(
      "call",
      root,
      "tsgreet.greet",
      JSON.stringify({ name: "x".repeat(101) }),
    );
    assert.match(long.stdout + long.stderr, /name: at most 100 characters/);
    // The log event is structured.
    const log = await sausage("log", root, "tsgreet", "--level", "info", "--json");
    assert.match(log.stdout, /"level":"info"/);
    assert.match(log.stdout, /greeted/);

    // A failing test fails the build, with the test's message.
    const testFile = `${root}/plugins/tsgreet/source/more_test.ts`;
    await Deno.writeTextFile(
      testFile,
      `import { assertEquals } from "sausage";\nimport { greet } from "./plugin";\n\n` +
        `/** A wrong expectation. */\nexport function counts_wrong() {\n` +
        `  assertEquals(greet({}).count, 7);\n}\n`,
    );
    const failing = await sausage("build", root, "tsgreet");
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /tsgreet was not built: 1 of 3 tests failed/);
    assert.match(failing.stderr, /expected 7, got 1/);
    await Deno.remove(testFile);

    // A type error fails the build with the file and line, and the version before runs on.
    const source = `${root}/plugins/tsgreet/source/plugin.ts`;
    const text = await Deno.readTextFile(source);
    await Deno.writeTextFile(source, text.replace("return { text:", "return { txt:"));
    const broken = await sausage("build", root, "tsgreet");
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /tsgreet was not built: 1 TypeScript error/);
    assert.match(broken.stderr, /plugin\.ts:\d+:\d+: .*txt/);
    const still = await sausage("call", root, "tsgreet.greet");
    assert.equal(JSON.parse(still.stdout).count, 3);
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

/** A TypeScript `notes` with the interface of examples/notes' `add` and `list`. */
const NOTES_TS = `import { fs, type integer, stateDir } from "sausage";

/** The result of \`add\`. */
export interface Added {
  /**
   * The number of notes after the call, with the new note.
   * @minimum 0
   * @maximum 4294967295
   */
  count: integer;
}

function load(): string[] {
  return JSON.parse(fs.readTextOr(\`\${stateDir()}/notes.json\`, "[]"));
}

/** Add a note at the end of the list. */
export function add(params: {
  /** The text of the new note. */
  text: string;
}): Added {
  const notes = load();
  notes.push(params.text);
  fs.writeText(\`\${stateDir()}/notes.json\`, JSON.stringify(notes));
  return { count: notes.length };
}

/** All notes, oldest first. */
export function list(): string[] {
  return load();
}
`;

/** A TypeScript plugin that calls the Rust consumer through its generated client. */
const FRONT_TS = `import type { integer } from "sausage";
import { note } from "./imports/consumer";

/** Remember a note: through the Rust consumer, which adds it to notes. */
export function remember(params: {
  /** The note. */
  text: string;
}): integer {
  return note({ text: params.text });
}
`;

Deno.test({
  name: "a TypeScript plugin and a Rust plugin call each other through generated clients",
  ...opts,
}, async () => {
  const consumer = await builtCrate("examples/consumer", "consumer");
  const root = await makeWorld({
    plugins: { consumer },
    files: {
      "config/boot.json": "[]",
      "plugins/notes/source/plugin.ts": NOTES_TS,
      "plugins/front/source/plugin.ts": FRONT_TS,
    },
  });
  try {
    // The Rust consumer imports notes.add: the TypeScript notes passes its checks.
    const notes = await sausage("build", root, "notes");
    assert.equal(notes.code, 0, notes.stderr);
    // TypeScript → Rust: the typed client of the consumer, from its document.
    const imported = await sausage("import", root, "front", "consumer");
    assert.equal(imported.code, 0, imported.stderr);
    const client = await Deno.readTextFile(`${root}/plugins/front/source/imports/consumer.ts`);
    assert.match(
      client,
      /export function note\(params: \{\n {2}\/\*\* The text of the note to add\. \*\/\n {2}text: string;\n\}\): number \{/,
    );
    // The same client at /proc (what the agent copies, having no `sausage import`).
    const served = await sausage("cat", root, "/proc/core/plugins/consumer/client.ts");
    assert.equal(served.code, 0, served.stderr);
    assert.equal(served.stdout, client);
    const front = await sausage("build", root, "front");
    assert.equal(front.code, 0, front.stderr);
    // front (TypeScript) → consumer (Rust, through the TS client) → notes (TypeScript, through the Rust client).
    const first = await sausage("call", root, "front.remember", '{"text": "milk"}');
    assert.equal(first.stdout.trim(), "1", first.stderr);
    const second = await sausage("call", root, "front.remember", '{"text": "eggs"}');
    assert.equal(second.stdout.trim(), "2", second.stderr);
    const listed = await sausage("call", root, "consumer.notes");
    assert.deepEqual(JSON.parse(listed.stdout), ["milk", "eggs"]);
    // The graph knows front imports consumer, checked.
    const graph = await sausage("cat", root, "/proc/core/graph.json");
    const imports = JSON.parse(graph.stdout).imports as {
      consumer: string;
      provider: string;
      status: string;
    }[];
    assert.ok(
      imports.some((i) => i.consumer === "front" && i.provider === "consumer" && i.status === "ok"),
      JSON.stringify(imports),
    );
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name: "sausage dev builds a TypeScript plugin made while it runs, and rebuilds it on each save",
  ...opts,
}, async () => {
  const root = await makeWorld({ files: { "config/boot.json": "[]" } });
  const dev = start("dev", root);
  try {
    await waitFor(dev.stderr, /dev: running .*watching the source of no plugin/, 0, 180_000);
    let mark = dev.stderr().length;
    // Made while dev runs: built, tested, activated and watched without a restart.
    assert.equal((await sausage("new", root, "tsdev", "--lang", "ts")).code, 0);
    await waitFor(dev.stderr, /tsdev is active/, mark, 180_000);
    const greeted = await sausage("call", root, "tsdev.greet", '{"name": "Ada"}');
    assert.equal(JSON.parse(greeted.stdout).text, "Hello, Ada!", greeted.stderr);
    const source = `${root}/plugins/tsdev/source/plugin.ts`;
    mark = dev.stderr().length;
    const saved = performance.now();
    await Deno.writeTextFile(
      source,
      (await Deno.readTextFile(source)) +
        `\n/** The version of this plugin. */\nexport function version(): string {\n  return "2";\n}\n`,
    );
    await waitFor(dev.stderr, /tsdev is active/, mark, 180_000);
    const seconds = (performance.now() - saved) / 1000;
    console.log(`edit -> active under dev: ${seconds.toFixed(1)} s (measured under load)`);
    const r = await sausage("call", root, "tsdev.version");
    assert.equal(JSON.parse(r.stdout), "2", r.stderr);
    // A type error keeps the last good version.
    mark = dev.stderr().length;
    await Deno.writeTextFile(source, (await Deno.readTextFile(source)).replace("text:", "txt:"));
    await waitFor(dev.stderr, /tsdev was not built/, mark, 180_000);
    const still = await sausage("call", root, "tsdev.version");
    assert.equal(JSON.parse(still.stdout), "2", still.stderr);
  } finally {
    dev.child.kill("SIGINT");
    await dev.child.status;
    await dev.read;
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
