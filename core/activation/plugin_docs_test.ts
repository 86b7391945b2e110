import { strict as assert } from "node:assert";
import { PluginDocs } from "./plugin_docs.ts";
import { DiscoverStore } from "./discover_store.ts";
import { CoreCallFailed } from "../calls/call_as_core.ts";
import { ErrorCode } from "../../rpc/errors.ts";
import { FileHashes } from "../cache/file_hash.ts";
import { World } from "../world/world.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";

const valid: OpenRpcDocument = {
  openrpc: "1.2.6",
  info: { title: "notes", version: "1" },
  methods: [{ name: "list", params: [], result: { name: "notes", schema: { type: "array" } } }],
} as OpenRpcDocument;

/** A world with one plugin file, and a fresh "host" (PluginDocs) on it at each `host()`. */
async function setup() {
  const root = await Deno.makeTempDir({ prefix: "sausage-docs-" });
  await Deno.mkdir(`${root}/plugins/notes`, { recursive: true });
  await Deno.writeTextFile(`${root}/plugins/notes/plugin.wasm`, "v1");
  const world = new World(root);
  const store = new DiscoverStore(`${world.coreState()}/discovered`);
  const runs: string[] = [], lines: string[] = [], events: [string, unknown][] = [];
  let answer: () => OpenRpcDocument = () => valid;
  const host = () =>
    new PluginDocs(
      world,
      (plugin) => {
        runs.push(plugin);
        return Promise.resolve().then(() => answer());
      },
      new FileHashes(),
      {
        store,
        report: (l) => lines.push(l),
        journal: { coreEvent: (event, fields) => events.push([event, fields]) },
      },
    );
  return {
    root,
    runs,
    lines,
    events,
    host,
    answer: (f: () => OpenRpcDocument) => (answer = f),
    version: (text: string) => Deno.writeTextFile(`${root}/plugins/notes/plugin.wasm`, text),
  };
}

Deno.test("discovery runs once per plugin version: a new host finds the document kept in state/core", async () => {
  const t = await setup();
  try {
    assert.deepEqual(await t.host().get("notes"), valid);
    assert.deepEqual(await t.host().get("notes"), valid, "a second host start");
    assert.equal(t.runs.length, 1, "run once for the version");
    await t.version("v2");
    await t.host().get("notes");
    assert.equal(t.runs.length, 2, "a new version is discovered afresh");
    assert.deepEqual(t.lines, []);
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});

Deno.test("a discovery that ends without an answer is said once, journaled, and not run again for that version", async () => {
  const t = await setup();
  try {
    t.answer(() => {
      throw new CoreCallFailed("notes.rpc.discover failed: it trapped", ErrorCode.NoAnswer, {
        status: 1,
        trap: "trap: unreachable",
      });
    });
    const first = t.host();
    await assert.rejects(first.get("notes"), /it trapped/);
    await assert.rejects(first.get("notes"), /it trapped/);
    assert.equal(t.lines.length, 1, t.lines.join("\n"));
    assert.match(
      t.lines[0],
      /^sausage: notes has no methods: its rpc\.discover failed: .*not run again/,
    );
    assert.equal(t.events.filter(([e]) => e === "discover-failed").length, 1);
    await assert.rejects(t.host().get("notes"), /it trapped/, "the next host start keeps it");
    assert.equal(t.runs.length, 1, "not run again");
    assert.match(t.lines[1], /when this version was first run/);
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});

Deno.test("a discovery the plugin is not to blame for (a kill, a lost sandbox, a limit) is tried again", async () => {
  const t = await setup();
  try {
    const failures = [
      new CoreCallFailed("killed", ErrorCode.NoAnswer, { status: "killed" }),
      new CoreCallFailed("lost", ErrorCode.NoAnswer, {
        status: 1,
        trap: "the sandbox was lost: it exited",
      }),
      new CoreCallFailed("limit", ErrorCode.LimitReached),
      new CoreCallFailed("slow", "timeout"),
    ];
    for (const failure of failures) {
      t.answer(() => {
        throw failure;
      });
      await assert.rejects(t.host().get("notes"), failure);
    }
    t.answer(() => valid);
    assert.deepEqual(await t.host().get("notes"), valid);
    assert.equal(t.runs.length, failures.length + 1);
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});
