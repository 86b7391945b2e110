import { strict as assert } from "node:assert";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { MethodObject, OpenRpcDocument } from "../rpc/openrpc.ts";
import { inputSchema, outputSchema, wrapsResult } from "./tool_schema.ts";

const Added = {
  description: "The result of `add`.",
  type: "object",
  properties: { count: { type: "integer", minimum: 0 } },
  required: ["count"],
};

/** notes.add as schemars writes it: the result's type embedded in its own $defs. */
const add: MethodObject = {
  name: "add",
  summary: "Add a note.",
  params: [{ name: "text", required: true, description: "The text.", schema: { type: "string" } }],
  result: { name: "added", schema: { $defs: { Added }, $ref: "#/$defs/Added" } },
};

Deno.test("params become one object schema with each param's description and the required ones", () => {
  assert.deepEqual(inputSchema(add), {
    type: "object",
    properties: { text: { description: "The text.", type: "string" } },
    required: ["text"],
  });
  assert.deepEqual(inputSchema({ name: "list", params: [] }), { type: "object", properties: {} });
});

Deno.test("an object result is the output schema itself, its $ref followed", () => {
  assert.deepEqual(outputSchema(add), Added);
  assert.equal(wrapsResult(add), false);
});

Deno.test("a result that is not an object is wrapped as {result}", () => {
  const list: MethodObject = {
    name: "list",
    params: [],
    result: { name: "notes", schema: { type: "array", items: { type: "string" } } },
  };
  assert.deepEqual(outputSchema(list), {
    type: "object",
    properties: { result: { type: "array", items: { type: "string" } } },
    required: ["result"],
  });
  assert.equal(wrapsResult(list), true);
  assert.equal(outputSchema({ name: "x", params: [] }), undefined);
});

Deno.test("$defs of params and components.schemas are carried to the top; recursion survives; same names are told apart", () => {
  const Tree = {
    type: "object",
    properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } },
  };
  const OtherTree = { type: "string" };
  const m: MethodObject = {
    name: "plant",
    params: [
      { name: "tree", required: true, schema: { $defs: { Tree }, $ref: "#/$defs/Tree" } },
      { name: "other", schema: { $ref: "#/components/schemas/Tree" } },
      { name: "lost", schema: { $ref: "#/$defs/Nowhere" } },
    ],
  };
  const doc = { components: { schemas: { Tree: OtherTree } } } as unknown as OpenRpcDocument;
  const s = inputSchema(m, doc);
  assert.deepEqual(s.properties, {
    tree: { $ref: "#/$defs/Tree" },
    other: { $ref: "#/$defs/Tree_2" },
    lost: {},
  });
  assert.deepEqual(s.$defs, {
    Tree: {
      type: "object",
      properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } },
    },
    Tree_2: { type: "string" },
  });
  const validate = new Ajv2020({ strict: false }).compile(s);
  assert.ok(validate({ tree: { kids: [{ kids: [] }] }, other: "x" }));
  assert.ok(!validate({ tree: { kids: [3] } }));
  assert.ok(!validate({ tree: {}, other: 3 }));
});

Deno.test("only schema keywords are rewritten: a property named $ref and data stay as they are", () => {
  const odd = {
    type: "object",
    properties: { $ref: { type: "string" }, $defs: { const: { $ref: "#/$defs/X" } } },
    default: { $ref: "#/$defs/X" },
  };
  const s = inputSchema({ name: "odd", params: [{ name: "o", schema: odd }] });
  assert.deepEqual(s.properties, { o: odd });
  assert.equal(s.$defs, undefined);
});
