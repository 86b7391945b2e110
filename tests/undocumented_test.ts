/**
 * Plugins without a document (PROTOCOL 10.1, 10.3): plain preview-1 modules
 * compiled from C that do not answer `rpc.discover` are activated with no
 * methods, and say so; one that crashes on it is refused; a refused
 * activation of a new plugin leaves no folder behind.
 */

import { strict as assert } from "node:assert";
import { TestHost } from "./helpers/host.ts";
import { builtCPlugin } from "./helpers/c_plugins.ts";
import type { Entry } from "../core/journal/journal.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

const [answersError, exitsClean, traps] = await Promise.all([
  builtCPlugin("undocumented"),
  builtCPlugin("undocumented", ["DISCOVER_EXITS"]),
  builtCPlugin("undocumented", ["DISCOVER_TRAPS"]),
]);

async function withHost(fn: (h: TestHost) => Promise<void>) {
  const h = await TestHost.start({});
  await Deno.mkdir(`${h.root}/state/builds`, { recursive: true });
  for (const [name, file] of Object.entries({ answersError, exitsClean, traps })) {
    await Deno.copyFile(file, `${h.root}/state/builds/${name}.wasm`);
  }
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name:
    "a C plugin that answers rpc.discover with -32601 is activated with no methods, says so, and answers calls",
  ...opts,
}, () =>
  withHost(async (h) => {
    const r = await h.result<Record<string, Record<string, unknown>>>("core.activate", {
      plugin: "undocumented",
      wasm: "/state/builds/answersError.wasm",
    });
    assert.deepEqual(r.undocumented.methods, []);
    assert.match(
      String(r.undocumented["x-sausage-no-document"]),
      /^undocumented has no rpc.discover document \(it answered rpc.discover with -32601 \(method not found\)\): .*no methods in methods or MCP/,
    );
    const answer = await h.result<{ calls: number; request: string }>("undocumented.anything", {
      n: 1,
    });
    assert.equal(answer.calls, 1);
    assert.match(answer.request, /"method":"anything"/);
    assert.equal((await h.result<{ calls: number }>("undocumented.again")).calls, 2);
    const graph = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/graph.json")),
    );
    const plugin = graph.plugins.find((p: { name: string }) => p.name === "undocumented");
    assert.deepEqual(plugin.methods, []);
    const events = (await h.result<Entry[]>("core.log", { grep: '"event":"activate"' }))
      .map((e) => JSON.parse(e.line));
    assert.deepEqual(events.map((e) => [e.plugin, e.document]), [["undocumented", false]]);
  }));

Deno.test({
  name: "a C plugin that ends with status 0 without answering rpc.discover is activated too",
  ...opts,
}, () =>
  withHost(async (h) => {
    const r = await h.result<Record<string, Record<string, unknown>>>("core.activate", {
      plugin: "quiet",
      wasm: "/state/builds/exitsClean.wasm",
    });
    assert.match(String(r.quiet["x-sausage-no-document"]), /ended with exit status 0/);
    assert.equal((await h.result<{ calls: number }>("quiet.x")).calls, 1);
  }));

Deno.test({
  name:
    "a plugin that traps on rpc.discover is refused, and a refused new plugin leaves no folder behind",
  ...opts,
}, () =>
  withHost(async (h) => {
    const r = await h.call("core.activate", { plugin: "crashy", wasm: "/state/builds/traps.wasm" });
    assert.equal(r.error?.code, -32003);
    assert.match(r.error!.message, /^crashy was not activated: its rpc.discover failed: .*trapped/);
    assert.equal(exists(`${h.root}/plugins/crashy`), false);
    await Deno.writeTextFile(`${h.root}/state/builds/junk.wasm`, "not wasm");
    const junk = await h.call("core.activate", { plugin: "junk", wasm: "/state/builds/junk.wasm" });
    assert.equal(junk.error?.code, -32003);
    assert.equal(exists(`${h.root}/plugins/junk`), false);
    // Refused in a set with a plugin that would be fine: neither folder is left.
    const set = await h.call("core.activate", {
      plugins: [
        { plugin: "fine", wasm: "/state/builds/answersError.wasm" },
        { plugin: "crashy", wasm: "/state/builds/traps.wasm" },
      ],
    });
    assert.equal(set.error?.code, -32003);
    assert.deepEqual([exists(`${h.root}/plugins/fine`), exists(`${h.root}/plugins/crashy`)], [
      false,
      false,
    ]);
  }));
