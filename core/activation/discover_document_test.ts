import { strict as assert } from "node:assert";
import { checkedDocument, InvalidDocument } from "./discover_document.ts";
import { PluginDocs } from "./plugin_docs.ts";
import { FileHashes } from "../cache/file_hash.ts";
import { World } from "../world/world.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";

const valid = {
  openrpc: "1.2.6",
  info: { title: "notes", version: "1" },
  methods: [{ name: "list", params: [], result: { name: "notes", schema: { type: "array" } } }],
};

Deno.test("checkedDocument passes a valid document and names the problems of an invalid one", () => {
  assert.equal(checkedDocument("notes", valid), valid);
  for (const answer of [null, "text", [], { ...valid, info: { title: "notes" } }]) {
    assert.throws(() => checkedDocument("notes", answer), InvalidDocument);
  }
  const many = { openrpc: "1.2.6", info: {}, methods: [{}, {}] };
  try {
    checkedDocument("notes", many);
    assert.fail("an invalid document was accepted");
  } catch (e) {
    assert.ok(e instanceof InvalidDocument);
    assert.equal(e.plugin, "notes");
    assert.ok(e.problems.length > 3, e.problems.join("\n"));
    assert.match(e.message, /^its rpc.discover answer is not a valid OpenRPC document: \/info: /);
    assert.match(e.message, /\(and \d+ more\)$/);
  }
});

Deno.test("PluginDocs keeps an invalid document's error for that version, and retries a failed discover", async () => {
  const root = await Deno.makeTempDir({ prefix: "sausage-docs-" });
  try {
    await Deno.mkdir(`${root}/plugins/notes`, { recursive: true });
    await Deno.writeTextFile(`${root}/plugins/notes/plugin.wasm`, "v1");
    let calls = 0;
    let answer: () => unknown = () => ({ openrpc: "1.2.6" });
    const docs = new PluginDocs(new World(root), (plugin) => {
      calls++;
      return Promise.resolve().then(() => checkedDocument(plugin, answer()));
    }, new FileHashes());
    await assert.rejects(docs.get("notes"), InvalidDocument);
    await assert.rejects(docs.get("notes"), InvalidDocument);
    assert.equal(calls, 1, "the same version is not asked twice");

    await Deno.writeTextFile(`${root}/plugins/notes/plugin.wasm`, "v2, a failing discover");
    answer = () => {
      throw new Error("the process ended without an answer");
    };
    await assert.rejects(docs.get("notes"), /without an answer/);
    answer = () => valid;
    assert.deepEqual(await docs.get("notes"), valid as OpenRpcDocument);
    assert.equal(calls, 3, "a failed discover is tried again");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
