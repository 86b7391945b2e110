import assert from "node:assert/strict";
import {
  endpointsOf,
  importsOf,
  type OpenRpcDocument,
  schemaDefs,
  validateOpenRpc,
} from "./openrpc.ts";

/** The www document of section 10.1, with an endpoint and an import written out. */
const www: OpenRpcDocument = {
  openrpc: "1.2.6",
  info: { title: "www", version: "0.1.0" },
  methods: [{
    name: "start",
    summary: "Start the web server and return the ID of its process.",
    paramStructure: "by-name",
    params: [{
      name: "port",
      required: true,
      description: "The TCP port to listen on, on all interfaces.",
      schema: { type: "integer", minimum: 0, maximum: 65535 },
    }],
    result: { name: "pid", schema: { type: "string" } },
  }],
  "x-sausage-endpoints": {
    control: {
      methods: [{
        name: "stats",
        summary: "The number of HTTP requests that the server answered since its start.",
        paramStructure: "by-name",
        params: [],
        result: { name: "hits", schema: { type: "integer", format: "uint64", minimum: 0 } },
      }],
    },
  },
  "x-sausage-imports": {
    notes: {
      methods: [{
        name: "add",
        paramStructure: "by-name",
        params: [{ name: "text", required: true, schema: { type: "string" } }],
        result: { name: "added", schema: { $ref: "#/components/schemas/Added" } },
      }],
      components: {
        schemas: {
          Added: {
            type: "object",
            properties: { count: { type: "integer" } },
            required: ["count"],
          },
        },
      },
    },
  },
};

Deno.test("a valid document has no problems", () => {
  assert.deepEqual(validateOpenRpc(www), []);
});

Deno.test("the accessors read the extensions and the named schemas", () => {
  assert.deepEqual(Object.keys(endpointsOf(www)), ["control"]);
  assert.deepEqual(Object.keys(importsOf(www)), ["notes"]);
  assert.deepEqual(Object.keys(schemaDefs(importsOf(www).notes)), ["Added"]);
  assert.deepEqual(schemaDefs(www), {});
});

Deno.test("validateOpenRpc: table of broken documents and their problems", () => {
  const method = www.methods[0];
  const table: { name: string; doc: unknown; problems: string[] }[] = [
    { name: "not an object", doc: "www", problems: ["/: must be object"] },
    {
      name: "missing version, a method with a number as name and params that are not a list",
      doc: { openrpc: "1.2.6", info: { title: "x" }, methods: [{ name: 3, params: "no" }] },
      problems: [
        "/info: must have required property 'version'",
        "/methods/0/name: must be string",
        "/methods/0/params: must be array",
      ],
    },
    {
      name: "an unknown top-level field",
      doc: { ...www, extra: 1 },
      problems: ['/: must NOT have additional properties ("extra")'],
    },
    {
      name: "an endpoint method without a name",
      doc: { ...www, "x-sausage-endpoints": { control: { methods: [{ params: [] }] } } },
      problems: ["/x-sausage-endpoints/control/methods/0: must have required property 'name'"],
    },
    {
      name: "an import entry without methods",
      doc: { ...www, "x-sausage-imports": { notes: {} } },
      problems: ["/x-sausage-imports/notes: must have required property 'methods'"],
    },
    {
      name: "duplicate names",
      doc: {
        ...www,
        methods: [method, { ...method, params: [...method.params, ...method.params] }],
      },
      problems: [
        '/methods/1/name: duplicate method name "start"',
        '/methods/1/params/1/name: duplicate param name "port"',
      ],
    },
    {
      name: "a $ref that names no schema",
      doc: {
        ...www,
        methods: [{
          ...method,
          result: { name: "pid", schema: { $ref: "#/components/schemas/Pid" } },
        }],
      },
      problems: ['/methods/0/result/schema: $ref "#/components/schemas/Pid" does not resolve'],
    },
    {
      name: "a method written as a reference object",
      doc: { ...www, methods: [{ $ref: "#/components/methods/start" }] },
      problems: ["/methods/0: a reference object is not supported here; write the method out"],
    },
  ];
  for (const t of table) assert.deepEqual(validateOpenRpc(t.doc), t.problems, t.name);
});
