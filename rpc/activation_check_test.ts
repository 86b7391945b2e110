import assert from "node:assert/strict";
import type { JsonSchema } from "./json_schema.ts";
import type { ImportDescription, MethodObject, OpenRpcDocument } from "./openrpc.ts";
import { validateOpenRpc } from "./openrpc.ts";
import { checkActivation } from "./activation_check.ts";
import { Added, addMethod, doc, importedAdd, RENAME_REFUSAL } from "./testdata/notes_documents.ts";

const listMethod: MethodObject = {
  name: "list",
  summary: "List all notes, the oldest first.",
  paramStructure: "by-name",
  params: [],
  result: { name: "notes", schema: { type: "array", items: { type: "string" } } },
};

function notes(param: string, withList = true): OpenRpcDocument {
  return doc("notes", withList ? [addMethod(param), listMethod] : [addMethod(param)], {
    components: { schemas: { Added } },
  });
}

const chat: MethodObject = {
  name: "chat",
  paramStructure: "by-name",
  params: [{ name: "text", required: true, schema: { type: "string" } }],
  result: { name: "answer", schema: { type: "string" } },
};

/** The agent, importing `notes.add(<param>)` (with the example call that adds "milk") and more. */
function agent(param: string, imports: Record<string, ImportDescription> = {}): OpenRpcDocument {
  return doc("agent", [chat], {
    "x-sausage-imports": {
      notes: { methods: [importedAdd(param)], components: { schemas: { Added } } },
      ...imports,
    },
  });
}

const stats = (schema: JsonSchema): MethodObject => ({
  name: "stats",
  summary: "The number of HTTP requests that the server answered since its start.",
  paramStructure: "by-name",
  params: [],
  result: { name: "hits", schema },
});

const start = (port: JsonSchema): MethodObject => ({
  name: "start",
  summary: "Start the web server and return the ID of its process.",
  paramStructure: "by-name",
  params: [{ name: "port", required: true, schema: port }],
  result: { name: "pid", schema: { type: "string" } },
});

const u16 = { type: "integer", format: "uint16", minimum: 0, maximum: 65535 };
const u64 = { type: "integer", format: "uint64", minimum: 0 };

function www(port: JsonSchema, control: MethodObject[] | undefined): OpenRpcDocument {
  return doc(
    "www",
    [start(port)],
    control ? { "x-sausage-endpoints": { control: { methods: control } } } : {},
  );
}

/** A dashboard that starts servers and reads their stats over the endpoint. */
const dash = doc("dash", [], {
  "x-sausage-imports": {
    www: { methods: [start(u16)], endpoints: { control: { methods: [stats(u64)] } } },
  },
});

const current = new Map<string, OpenRpcDocument>([
  ["notes", notes("text")],
  ["agent", agent("text")],
  ["www", www(u16, [stats(u64)])],
  ["dash", dash],
]);

Deno.test("the fixtures are valid OpenRPC documents", () => {
  for (const [name, d] of current) assert.deepEqual(validateOpenRpc(d), [], name);
});

Deno.test("the current plugins are compatible with each other", () => {
  const r = checkActivation(current, new Map(current));
  assert.deepEqual(r.problems, []);
  assert.equal(r.message, "");
});

Deno.test("renaming a param of notes.add breaks agent, with the message of the spec", () => {
  const r = checkActivation(current, new Map([["notes", notes("body")]]));
  assert.equal(r.ok, false);
  assert.equal(r.message, RENAME_REFUSAL);
  assert.deepEqual(r.data, {
    plugins: ["notes"],
    problems: [{
      consumer: "agent",
      provider: "notes",
      providerVersion: "new",
      method: "add",
      kind: "params",
      imports: "notes.add(text: string) -> Added",
      reason: 'The new notes.add has no param "text". It requires "body": string.',
      counterexample: { text: "milk" },
      cannotProve: false,
      role: "consumer",
    }],
  });
});

Deno.test("activating the consumer and the provider together passes", () => {
  const r = checkActivation(current, new Map([["notes", notes("body")], ["agent", agent("body")]]));
  assert.deepEqual(r.problems, []);
  assert.equal(r.ok, true);
});

Deno.test("the new consumer alone breaks against the current provider", () => {
  const r = checkActivation(current, new Map([["agent", agent("body")]]));
  assert.equal(
    r.message,
    [
      "agent was not activated: 1 import breaks.",
      "- agent imports notes.add(body: string) -> Added.",
      '  The current notes.add has no param "body". It requires "text": string.',
      '  Counterexample: {"body": "milk"} is not valid for the current params.',
      "  Update agent's imports/notes.json from /proc/core/plugins/notes/discover.json, " +
      "or activate a matching notes together with agent.",
    ].join("\n"),
  );
});

Deno.test("an import of a plugin that does not exist is missing", () => {
  const ghost = { methods: [{ ...listMethod, name: "ping" }] };
  const r = checkActivation(current, new Map([["agent", agent("text", { ghost })]]));
  assert.deepEqual(r.problems.map((p) => [p.provider, p.kind, p.role]), [[
    "ghost",
    "missing",
    "import",
  ]]);
  assert.equal(
    r.message,
    [
      "agent was not activated: 1 imported plugin does not exist.",
      "- agent imports ghost (ping).",
      "  There is no plugin ghost.",
      "  Add the plugin ghost first, or remove the import of ghost from agent.",
    ].join("\n"),
  );
});

Deno.test("a removed method breaks its consumer", () => {
  const agentWithList = agent("text");
  agentWithList["x-sausage-imports"]!.notes.methods.push(listMethod);
  const cur = new Map(current).set("agent", agentWithList);
  const r = checkActivation(cur, new Map([["notes", notes("text", false)]]));
  assert.equal(
    r.message,
    [
      "notes was not activated: 1 consumer breaks.",
      "- agent imports notes.list() -> array of string.",
      '  The new notes has no method "list". It has: add.',
      "  Update agent first, or activate both together.",
    ].join("\n"),
  );
});

Deno.test("a narrowed integer range breaks a consumer, with the first value it rejects", () => {
  const r = checkActivation(
    current,
    new Map([["www", www({ ...u16, minimum: 1024 }, [stats(u64)])]]),
  );
  assert.equal(
    r.message,
    [
      "www was not activated: 1 consumer breaks.",
      "- dash imports www.start(port: integer 0..65535) -> string.",
      '  The new www.start takes "port": integer 1024..65535, but dash may send integer 0..65535.',
      '  Counterexample: {"port": 1023} is not valid for the new params.',
      "  Update dash first, or activate both together.",
    ].join("\n"),
  );
});

Deno.test("a changed endpoint method breaks a consumer of the endpoint", () => {
  const r = checkActivation(current, new Map([["www", www(u16, [stats({ type: "string" })])]]));
  assert.equal(r.problems.length, 1);
  const [p] = r.problems;
  assert.equal(p.endpoint, "control");
  assert.equal(p.method, "stats");
  assert.equal(p.kind, "result");
  assert.equal(
    r.message,
    [
      "www was not activated: 1 consumer breaks.",
      "- dash imports stats() -> integer >= 0 (uint64) from the endpoint www.control.",
      "  The new www.control.stats may return a result that dash cannot read: " +
      "may be string, but must be integer >= 0 (uint64).",
      '  Counterexample: the new www.control.stats may return "", which is not valid for dash.',
      "  Update dash first, or activate both together.",
    ].join("\n"),
  );
});

Deno.test("a removed endpoint breaks a consumer of the endpoint", () => {
  const r = checkActivation(current, new Map([["www", www(u16, undefined)]]));
  assert.deepEqual(r.problems.map((p) => [p.kind, p.endpoint, p.reason]), [
    ["no-endpoint", "control", 'The new www has no endpoint "control". It has: no endpoints.'],
  ]);
  assert.match(r.message, /^- dash imports the endpoint www\.control \(stats\)\.$/m);
});

Deno.test("a removed result field: one item per method, one advice per consumer", () => {
  const bare = notes("text");
  bare.components = { schemas: { Added: { type: "object", properties: {} } } };
  bare.methods[1] = {
    ...listMethod,
    result: { name: "notes", schema: { type: "array", items: { type: "integer" } } },
  };
  const agentWithList = agent("text");
  agentWithList["x-sausage-imports"]!.notes.methods.push(listMethod);
  const r = checkActivation(
    new Map(current).set("agent", agentWithList),
    new Map([["notes", bare]]),
  );
  assert.equal(
    r.message,
    [
      "notes was not activated: 1 consumer breaks.",
      "- agent imports notes.add(text: string) -> Added.",
      '  The new notes.add returns Added without the field "count", which agent requires.',
      "  Counterexample: the new notes.add may return {}, which is not valid for agent.",
      "- agent imports notes.list() -> array of string.",
      "  The new notes.list may return a result that agent cannot read: at []: may be integer, but must be string.",
      "  Counterexample: the new notes.list may return [0], which is not valid for agent.",
      "  Update agent first, or activate both together.",
    ].join("\n"),
  );
});

Deno.test("several plugins activated together are named together", () => {
  const r = checkActivation(
    current,
    new Map([["notes", notes("body")], ["www", www(u16, [stats(u64)])]]),
  );
  assert.match(r.message, /^notes and www were not activated: 1 consumer breaks\.$/m);
  assert.match(r.message, /Update agent first, or add it to this activation\./);
});

Deno.test("consumers of plugins that are not activated are not checked", () => {
  const broken = new Map(current).set(
    "dash",
    doc("dash", [], {
      "x-sausage-imports": { www: { methods: [start({ type: "string" })] } },
    }),
  );
  const r = checkActivation(broken, new Map([["notes", notes("text")]]));
  assert.deepEqual(r.problems, []);
});
