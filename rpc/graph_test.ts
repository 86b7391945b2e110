import assert from "node:assert/strict";
import type { MethodObject, OpenRpcDocument } from "./openrpc.ts";
import { buildGraph, graphToDot } from "./graph.ts";

const method = (name: string, param?: string): MethodObject => ({
  name,
  paramStructure: "by-name",
  params: param ? [{ name: param, required: true, schema: { type: "string" } }] : [],
  result: { name: "result", schema: { type: "string" } },
});

const doc = (
  title: string,
  methods: MethodObject[],
  extra: Partial<OpenRpcDocument> = {},
): OpenRpcDocument => ({
  openrpc: "1.2.6",
  info: { title, version: "0.1.0" },
  methods,
  ...extra,
});

/** notes (renamed by hand: its param is now "body"), www with an endpoint, and their consumers. */
const docs = new Map<string, OpenRpcDocument>([
  ["notes", doc("notes", [method("add", "body"), method("list")])],
  [
    "www",
    doc("www", [method("start")], {
      "x-sausage-endpoints": { control: { methods: [method("stats")] } },
    }),
  ],
  [
    "agent",
    doc("agent", [method("chat", "text")], {
      "x-sausage-imports": {
        notes: { methods: [method("add", "text"), method("list")] },
        www: { methods: [method("start")], endpoints: { control: { methods: [method("stats")] } } },
      },
    }),
  ],
  ["cron", doc("cron", [], { "x-sausage-imports": { clock: { methods: [method("now")] } } })],
]);

const hashes = new Map([["notes", "sha256:n"], ["www", "sha256:w"], ["agent", "sha256:a"]]);

Deno.test("graph.json lists plugins, endpoints and each import with its status", () => {
  const g = buildGraph(docs, hashes);
  assert.deepEqual(g.plugins, [
    { name: "agent", hash: "sha256:a", methods: ["chat"], endpoints: [] },
    { name: "cron", hash: null, methods: [], endpoints: [] },
    { name: "notes", hash: "sha256:n", methods: ["add", "list"], endpoints: [] },
    {
      name: "www",
      hash: "sha256:w",
      methods: ["start"],
      endpoints: [{ name: "control", methods: ["stats"] }],
    },
  ]);
  assert.deepEqual(g.imports.map(({ problems: _, ...edge }) => edge), [
    { consumer: "agent", provider: "notes", methods: ["add", "list"], status: "broken" },
    { consumer: "agent", provider: "www", methods: ["start", "control.stats"], status: "ok" },
    { consumer: "cron", provider: "clock", methods: ["now"], status: "missing" },
  ]);
  assert.deepEqual(g.imports[0].problems, [{
    method: "add",
    kind: "params",
    reason: 'notes.add has no param "text". It requires "body": string.',
    counterexample: { text: "" },
    cannotProve: false,
  }]);
  assert.deepEqual(g.imports[2].problems.map((p) => [p.kind, p.reason]), [[
    "missing",
    "There is no plugin clock.",
  ]]);
  assert.doesNotThrow(() => JSON.parse(JSON.stringify(g)));
});

Deno.test("graph.dot draws broken edges red and dashed, and missing providers dashed", () => {
  assert.equal(
    graphToDot(buildGraph(docs, hashes)),
    [
      "digraph sausage {",
      "  rankdir=LR;",
      "  node [shape=box];",
      '  "agent";',
      '  "cron";',
      '  "notes";',
      '  "www";',
      '  "clock" [style=dashed, label="clock\\n(missing)"];',
      '  "agent" -> "notes" [label="add, list", color=red, fontcolor=red, style=dashed];',
      '  "agent" -> "www" [label="start, control.stats"];',
      '  "cron" -> "clock" [label="now", style=dashed];',
      "}",
      "",
    ].join("\n"),
  );
});

Deno.test("graph.dot escapes quotes in names", () => {
  const dot = graphToDot({
    plugins: [{ name: 'a"b', hash: null, methods: [], endpoints: [] }],
    imports: [],
  });
  assert.match(dot, /"a\\"b";/);
});

Deno.test("a plugin without a usable document has no methods, says why, and is drawn red", () => {
  const g = buildGraph(
    new Map([["notes", doc("notes", [])]]),
    new Map([["notes", "abc"]]),
    new Map([["notes", "its rpc.discover answer is not a valid OpenRPC document: /info: …"]]),
  );
  assert.deepEqual(g.plugins, [{
    name: "notes",
    hash: "abc",
    methods: [],
    endpoints: [],
    error: "its rpc.discover answer is not a valid OpenRPC document: /info: …",
  }]);
  assert.match(graphToDot(g), /"notes" \[color=red, label="notes\\n\(no document\)"\];/);
  const fine = buildGraph(new Map([["notes", doc("notes", [])]]), new Map());
  assert.equal("error" in fine.plugins[0], false);
});
