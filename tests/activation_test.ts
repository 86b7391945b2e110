/**
 * Activation, revert and the graph (sections 10.2–10.4) with real components
 * whose documents differ: `notes` v1 has `add(text)`, v2 renames it `add(body)`;
 * `agent` imports `notes.add(text)`, and its v2 imports `add(body)`.
 */

import { strict as assert } from "node:assert";
import { eventually, TestHost } from "./helpers/host.ts";
import { ifaceVersion } from "./helpers/iface.ts";
import { sha256 } from "../core/cache/sha256.ts";
import type { Entry } from "../core/journal/journal.ts";
import {
  Added,
  addMethod,
  doc,
  importedAdd,
  RENAME_REFUSAL,
} from "../rpc/testdata/notes_documents.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** `notes` with `add(<param>)`. */
function notes(param: string, version: string) {
  return doc("notes", [addMethod(param)], { components: { schemas: { Added } } }, version);
}

/** `agent`, which imports `notes.add(<param>)`. */
function agent(param: string, version: string) {
  return doc("agent", [], {
    "x-sausage-imports": {
      notes: { methods: [importedAdd(param)], components: { schemas: { Added } } },
    },
  }, version);
}

/** A document that is not OpenRPC: no `info.version`, a method without `params`. */
const invalidNotes = {
  openrpc: "1.2.6",
  info: { title: "notes" },
  methods: [{ name: "add", result: { name: "added", schema: {} } }],
};

const [notes1, notes2, agent1, agent2, notesInvalid] = await Promise.all([
  ifaceVersion(notes("text", "1")),
  ifaceVersion(notes("body", "2")),
  ifaceVersion(agent("text", "1")),
  ifaceVersion(agent("body", "2")),
  ifaceVersion(invalidNotes),
]);

async function withWorld(fn: (h: TestHost) => Promise<void>, watch = false) {
  const h = await TestHost.start({ plugins: { notes: notes1, agent: agent1 } }, { watch });
  await Deno.mkdir(`${h.root}/state/builds`, { recursive: true });
  for (const [name, file] of Object.entries({ notes1, notes2, agent1, agent2, notesInvalid })) {
    await Deno.copyFile(file, `${h.root}/state/builds/${name}.wasm`);
  }
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

async function hashOf(path: string): Promise<string> {
  return await sha256(await Deno.readFile(path));
}

Deno.test({
  name: "a change that breaks a consumer is refused with the counterexample, and nothing changes",
  ...opts,
}, () =>
  withWorld(async (h) => {
    const before = await hashOf(`${h.root}/plugins/notes/plugin.wasm`);
    const r = await h.call("core.activate", { plugin: "notes", wasm: "/state/builds/notes2.wasm" });
    assert.equal(r.error?.code, -32003);
    assert.equal(r.error!.message, RENAME_REFUSAL);
    const data = r.error!.data as { problems: { consumer: string; counterexample?: unknown }[] };
    assert.equal(data.problems[0].consumer, "agent");
    assert.deepEqual(data.problems[0].counterexample, { text: "milk" });
    assert.equal(await hashOf(`${h.root}/plugins/notes/plugin.wasm`), before);
    await assert.rejects(Deno.stat(`${h.root}/plugins/notes/plugin.prev.wasm`));
    assert.equal(await h.result("notes.version"), "1");
  }));

Deno.test({
  name:
    "consumer and provider activate together; new calls get the new version, running ones keep theirs",
  ...opts,
}, () =>
  withWorld(async (h) => {
    const running = await h.result<string>("core.call", {
      method: "notes.serve",
      params: {},
      detach: true,
    });
    assert.equal(running, "1");
    const docs = await h.result<Record<string, { info: { version: string } }>>("core.activate", {
      plugins: [{ plugin: "notes", wasm: "/state/builds/notes2.wasm" }, {
        plugin: "agent",
        wasm: "/state/builds/agent2.wasm",
      }],
    });
    assert.equal(docs.notes.info.version, "2");
    assert.equal(docs.agent.info.version, "2");
    assert.equal(await h.result("notes.version"), "2");
    assert.equal(await hashOf(`${h.root}/plugins/notes/plugin.prev.wasm`), await hashOf(notes1));
    const old = h.host.table.all().find((p) => p.method === "serve")!;
    assert.ok(old, "the process started before the activation still runs");
    const journal = await h.result<Entry[]>("core.log", { grep: '"event":"activate"' });
    assert.deepEqual(journal.map((e) => JSON.parse(e.line).plugin).sort(), ["agent", "notes"]);
  }));

Deno.test(
  { name: "revert swaps plugin.wasm and plugin.prev.wasm, with the same checks", ...opts },
  () =>
    withWorld(async (h) => {
      await h.result("core.activate", {
        plugin: "notes",
        wasm: "/state/builds/notes2.wasm",
        force: true,
      });
      assert.equal(await h.result("notes.version"), "2");
      // The forced v2 broke agent; going back to v1 is compatible again.
      await h.result("core.revert", { plugin: "notes" });
      assert.equal(await h.result("notes.version"), "1");
      assert.equal(await hashOf(`${h.root}/plugins/notes/plugin.prev.wasm`), await hashOf(notes2));
      // Reverting again would bring back the breaking v2: refused unless forced.
      const again = await h.call("core.revert", { plugin: "notes" });
      assert.equal(again.error?.code, -32003);
      const none = await h.call("core.revert", { plugin: "agent" });
      assert.equal(none.error?.code, -32602);
      assert.match(none.error!.message, /no previous version/);
    }),
);

Deno.test(
  { name: "bad activation input gets clear errors", ...opts },
  () =>
    withWorld(async (h) => {
      const outside = await h.call("core.activate", { plugin: "notes", wasm: "/../etc/passwd" });
      assert.match(outside.error!.message, /leaves the world/);
      const missing = await h.call("core.activate", {
        plugin: "notes",
        wasm: "/state/builds/nope.wasm",
      });
      assert.match(missing.error!.message, /does not exist/);
      const badName = await h.call("core.activate", {
        plugin: "core",
        wasm: "/state/builds/notes2.wasm",
      });
      assert.match(badName.error!.message, /reserved/);
      await Deno.writeTextFile(`${h.root}/state/builds/junk.wasm`, "not wasm");
      const junk = await h.call("core.activate", {
        plugin: "notes",
        wasm: "/state/builds/junk.wasm",
      });
      assert.equal(junk.error?.code, -32003);
      assert.match(junk.error!.message, /rpc.discover failed/);
    }),
);

Deno.test({
  name: "a breaking copy by hand shows in graph.json and graph.dot, and the journal records it",
  ...opts,
}, () =>
  withWorld(async (h) => {
    const ok = JSON.parse(new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")));
    assert.deepEqual(
      ok.imports.map((
        i: { consumer: string; provider: string; status: string },
      ) => [i.consumer, i.provider, i.status]),
      [
        ["agent", "notes", "ok"],
      ],
    );
    await Deno.copyFile(notes2, `${h.root}/plugins/notes/plugin.wasm`);
    const entry = await eventually(
      async () => (await h.result<Entry[]>("core.log", { grep: "broken-import" }))[0],
      "the journal entry",
    );
    assert.equal(JSON.parse(entry.line).consumer, "agent");
    const graph = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")),
    );
    assert.equal(graph.imports[0].status, "broken");
    const dot = new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.dot"));
    assert.match(dot, /digraph/);
    assert.match(dot, /"agent" -> "notes"/);
    // An import of a plugin that does not exist is "missing".
    await Deno.remove(`${h.root}/plugins/notes`, { recursive: true });
    const missing = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")),
    );
    assert.equal(missing.imports[0].status, "missing");
  }, true));

Deno.test({
  name:
    "an invalid rpc.discover document is refused at activation; copied by hand, its plugin has no methods in the graph, and the journal says why",
  ...opts,
}, () =>
  withWorld(async (h) => {
    const r = await h.call("core.activate", {
      plugin: "notes",
      wasm: "/state/builds/notesInvalid.wasm",
      force: true,
    });
    assert.equal(r.error?.code, -32003);
    assert.match(
      r.error!.message,
      /^notes was not activated: its rpc.discover answer is not a valid OpenRPC document: .*\/info: must have required property 'version'/,
    );
    const data = r.error!.data as { invalidDocument: { plugin: string; problems: string[] } };
    assert.equal(data.invalidDocument.plugin, "notes");
    assert.ok(data.invalidDocument.problems.some((p) => /\/methods\/0: .*'params'/.test(p)));
    assert.equal(await h.result("notes.version"), "1");
    const refused = await h.result<Entry[]>("core.log", { grep: "invalid-document" });
    assert.deepEqual(
      refused.map((e) => [JSON.parse(e.line).plugin, JSON.parse(e.line).candidate]),
      [["notes", true]],
    );

    // The same file copied by hand: its discovery ran once, at the activation (issue 35: once
    // per version); the graph says why it has no methods, and so does the journal.
    await Deno.copyFile(notesInvalid, `${h.root}/plugins/notes/plugin.wasm`);
    const entry = await eventually(
      async () =>
        (await h.result<Entry[]>("core.log", { grep: "discover-failed" })).find((e) =>
          JSON.parse(e.line).plugin === "notes"
        ),
      "the journal entry of the copy",
    );
    assert.match(JSON.parse(entry.line).error, /not a valid OpenRPC document/);
    assert.equal(
      (await h.result<Entry[]>("core.log", { grep: "invalid-document" })).length,
      1,
      "not discovered again",
    );
    const graph = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")),
    );
    const plugin = graph.plugins.find((p: { name: string }) => p.name === "notes");
    assert.deepEqual(plugin.methods, []);
    assert.match(plugin.error, /not a valid OpenRPC document/);
    assert.equal(graph.imports[0].status, "broken");
    const dot = new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.dot"));
    assert.match(dot, /"notes" \[color=red, label="notes\\n\(no document\)"\]/);
  }, true));
