import assert from "node:assert/strict";
import {
  cycles,
  ENTRIES,
  folderGraph,
  folderOf,
  type ImportGraph,
  importGraph,
} from "./import_cycles.ts";

const graph = (edges: Record<string, string[]>): ImportGraph =>
  new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));

Deno.test("cycles: the strongly connected components of more than one node", () => {
  const g = graph({
    "a/x.ts": ["a/y.ts", "b/z.ts"],
    "a/y.ts": ["a/x.ts"],
    "b/z.ts": ["b/w.ts"],
    "b/w.ts": ["b/z.ts", "c/v.ts"],
    "c/v.ts": [],
  });
  assert.deepEqual(cycles(g), [["a/x.ts", "a/y.ts"], ["b/w.ts", "b/z.ts"]]);
  assert.deepEqual(cycles(graph({ "a.ts": ["b.ts"], "b.ts": [] })), []);
});

Deno.test("folderGraph: top-level folders, a cycle between them; the root's files in none", () => {
  const g = graph({
    "main.ts": ["cli/main.ts"],
    "cli/main.ts": ["mcp/server.ts", "deno.json"],
    "mcp/server.ts": ["cli/client.ts"],
    "cli/client.ts": ["core/cargo/x.ts"],
    "core/cargo/x.ts": ["core/y.ts"],
    "core/y.ts": [],
  });
  const folders = folderGraph(g);
  assert.deepEqual([...folders.get("core")!], []);
  assert.deepEqual(cycles(folders), [["cli", "mcp"]]);
  assert.deepEqual(cycles(g), []);
});

Deno.test("folderGraph at depth 2: second-level folders, a file at the first level in its own", () => {
  assert.equal(folderOf("core/cargo/x.ts", 2), "core/cargo");
  assert.equal(folderOf("core/host.ts", 2), "core");
  assert.equal(folderOf("main.ts", 2), null);
  const g = graph({
    "core/host.ts": ["core/calls/router.ts"],
    "core/calls/router.ts": ["core/processes/p.ts"],
    "core/processes/p.ts": ["core/host.ts"],
    "core/cargo/x.ts": ["core/cargo/y.ts"],
    "core/cargo/y.ts": [],
  });
  assert.deepEqual(cycles(folderGraph(g)), []);
  assert.deepEqual(cycles(folderGraph(g, 2)), [["core", "core/calls", "core/processes"]]);
});

Deno.test("type-only imports are in the graph only when asked for", async () => {
  const files = await importGraph(["core/host.ts"]);
  const typed = await importGraph(["core/host.ts"], undefined, { types: true });
  const count = (g: ImportGraph) => [...g.values()].reduce((n, s) => n + s.size, 0);
  assert.ok(
    count(typed) > count(files),
    `${count(typed)} imports with types, ${count(files)} without`,
  );
});

Deno.test("the program has no import cycle between folders or files (deno info)", async () => {
  const files = await importGraph(ENTRIES);
  assert.ok(
    files.has("cli/main.ts") && files.has("sandbox/main.ts"),
    "the graph reaches the program",
  );
  assert.ok(
    files.get("cli/mcp.ts")?.has("mcp/server.ts"),
    "it holds the dynamic and static imports",
  );
  assert.ok(
    files.get("main.ts")?.has("cli/main.ts") && files.get("cli/main.ts")?.has("cli/call.ts") &&
      files.get("core/control/world_client.ts")?.has("core/control/world_server.ts"),
    "it holds the modules loaded later (core/load_later.ts)",
  );
  assert.deepEqual(cycles(folderGraph(files)), []);
  assert.deepEqual(cycles(files), []);
});
