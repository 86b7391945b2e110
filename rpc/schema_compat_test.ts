import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { isIP } from "node:net";
import corpus from "./testdata/compat_corpus.json" with { type: "json" };
import type { JsonSchema, SchemaDefs } from "./json_schema.ts";
import type { MethodObject } from "./openrpc.ts";
import { checkMethod, isSubschema, signature } from "./schema_compat.ts";
import { samples } from "./schema_sample.ts";
import { rootNode } from "./schema_scope.ts";

interface Case {
  name: string;
  sub: JsonSchema;
  subDefs?: SchemaDefs;
  sup: JsonSchema;
  supDefs?: SchemaDefs;
  ok: boolean;
  counterexample?: unknown;
  cannotProve?: boolean;
  maxDepth?: number;
}

/**
 * An oracle that shares no code with the check: plain ajv on the schema
 * with its defs under all three names, and the integer formats written out.
 */
function oracle(schema: JsonSchema, defs: SchemaDefs = {}): (v: unknown) => boolean {
  if (typeof schema === "boolean") return () => schema;
  const draft2020 = JSON.stringify(schema).includes('"prefixItems"');
  const ajv = draft2020
    ? new Ajv2020({ strict: false, logger: false })
    : new Ajv({ strict: false, logger: false });
  formatsModule.default(ajv);
  const ranges: Record<string, [number, number]> = {
    uint8: [0, 255],
    uint16: [0, 65535],
    uint32: [0, 4294967295],
    uint: [0, 4294967295],
    uint64: [0, 18446744073709549568],
    int8: [-128, 127],
    int16: [-32768, 32767],
    int32: [-2147483648, 2147483647],
    int: [-2147483648, 2147483647],
    int64: [-9223372036854775808, 9223372036854774784],
  };
  for (const [name, [lo, hi]] of Object.entries(ranges)) {
    ajv.addFormat(name, {
      type: "number",
      validate: (n: number) => Number.isInteger(n) && n >= lo && n <= hi,
    });
  }
  ajv.addFormat("double", { type: "number", validate: () => true });
  ajv.addFormat("ip", { type: "string", validate: (s: string) => isIP(s) !== 0 });
  const own = (schema.$defs ?? {}) as SchemaDefs;
  const root = {
    ...schema,
    $defs: { ...defs, ...own },
    definitions: defs,
    components: { schemas: defs },
  };
  const validate = ajv.compile(root);
  return (v) => validate(v) === true;
}

const cases = corpus as unknown as Case[];

Deno.test("the corpus has at least 40 schema pairs with unique names", () => {
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length);
});

for (const c of cases) {
  Deno.test(`compat: ${c.name}`, () => {
    const v = isSubschema(c.sub, c.subDefs ?? {}, c.sup, c.supDefs ?? {}, { maxDepth: c.maxDepth });
    const why = v.ok ? "" : ` (reason: ${v.reason})`;
    assert.equal(v.ok, c.ok, `expected ok=${c.ok}${why}`);
    if (v.ok) {
      // Soundness smoke test: no sample of the sub may be rejected by the sup.
      const [vSub, vSup] = [oracle(c.sub, c.subDefs), oracle(c.sup, c.supDefs)];
      for (const s of samples(rootNode(c.sub, c.subDefs ?? {}))) {
        if (vSub(s)) assert.ok(vSup(s), `ok, yet the sample ${JSON.stringify(s)} is rejected`);
      }
      return;
    }
    assert.equal(v.cannotProve, c.cannotProve ?? false, `cannotProve${why}`);
    if ("counterexample" in v) {
      assert.ok(
        oracle(c.sub, c.subDefs)(v.counterexample),
        `counterexample ${JSON.stringify(v.counterexample)} is not valid for sub`,
      );
      assert.ok(
        !oracle(c.sup, c.supDefs)(v.counterexample),
        `counterexample ${JSON.stringify(v.counterexample)} is valid for sup`,
      );
    }
    if ("counterexample" in c) {
      assert.deepEqual(v.counterexample, c.counterexample, `counterexample${why}`);
    } else {
      assert.ok(
        !("counterexample" in v),
        `unexpected counterexample ${JSON.stringify(v.counterexample)}${why}`,
      );
    }
  });
}

Deno.test("a failure says where and what differs", () => {
  const v = isSubschema(
    { type: "object", properties: { n: { type: "string" } }, required: ["n"] },
    {},
    { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    {},
  );
  assert.ok(!v.ok);
  assert.equal(v.reason, "at n: may be string, but must be integer");
  assert.equal(v.path, "n");
});

const added = {
  type: "object",
  properties: { count: { type: "integer", format: "uint", minimum: 0 } },
  required: ["count"],
};
const noted = { ...added, properties: { ...added.properties, note: { type: ["string", "null"] } } };
const defs: SchemaDefs = { Added: added, Noted: noted };

function add(
  params: MethodObject["params"],
  result: JsonSchema = { $ref: "#/components/schemas/Added" },
): MethodObject {
  return {
    name: "add",
    paramStructure: "by-name",
    params,
    result: { name: "added", schema: result },
  };
}

const text = { name: "text", required: true, schema: { type: "string" } };
const labels = { consumer: "agent", method: "The new notes.add", iface: "The new notes" };

Deno.test("checkMethod: table of method changes", () => {
  const table: {
    name: string;
    consumer: MethodObject;
    provider?: MethodObject;
    providerDefs?: SchemaDefs;
    kind?: string;
    reason?: string;
    counterexample?: unknown;
  }[] = [
    { name: "the same method", consumer: add([text]), provider: add([text]) },
    {
      name: "an added optional param",
      consumer: add([text]),
      provider: add([text, { name: "tag", schema: { type: "string" } }]),
    },
    {
      name: "a param the provider no longer reads",
      consumer: add([text, { name: "tag", schema: { type: "string" } }]),
      provider: add([text]),
    },
    {
      name: "a missing method",
      consumer: add([text]),
      kind: "no-method",
      reason: 'The new notes has no method "add".',
    },
    {
      name: "a renamed param",
      consumer: add([text]),
      provider: add([{ ...text, name: "body" }]),
      kind: "params",
      reason: 'The new notes.add has no param "text". It requires "body": string.',
      counterexample: { text: "" },
    },
    {
      name: "a new required param",
      consumer: add([text]),
      provider: add([text, { name: "tag", required: true, schema: { type: "string" } }]),
      kind: "params",
      reason: 'The new notes.add requires the new param "tag": string, which agent does not send.',
      counterexample: { text: "" },
    },
    {
      name: "an optional param becomes required",
      consumer: add([text, { name: "tag", schema: { type: "string" } }]),
      provider: add([text, { name: "tag", required: true, schema: { type: "string" } }]),
      kind: "params",
      reason: 'The new notes.add requires "tag", which agent may leave out.',
      counterexample: { text: "" },
    },
    {
      name: "a narrowed integer range",
      consumer: add([{
        name: "port",
        required: true,
        schema: { type: "integer", format: "uint16", minimum: 0, maximum: 65535 },
      }]),
      provider: add([{
        name: "port",
        required: true,
        schema: { type: "integer", minimum: 1024, maximum: 65535 },
      }]),
      kind: "params",
      reason:
        'The new notes.add takes "port": integer 1024..65535, but agent may send integer 0..65535.',
      counterexample: { port: 1023 },
    },
    {
      name: "a pattern the check cannot compare",
      consumer: add([{ ...text, schema: { type: "string", pattern: "^a+$" } }]),
      provider: add([{ ...text, schema: { type: "string", pattern: "^a" } }]),
      kind: "params",
      reason:
        "The check cannot prove that the new notes.add accepts every params object that agent may send: " +
        "at text: cannot prove that string matching /^a+$/ always matches /^a/.",
    },
    {
      name: "a removed result field",
      consumer: add([text]),
      provider: add([text]),
      providerDefs: { Added: { type: "object", properties: {} } },
      kind: "result",
      reason: 'The new notes.add returns Added without the field "count", which agent requires.',
      counterexample: {},
    },
    {
      name: "a removed optional result field that the consumer still reads",
      consumer: add([text], { $ref: "#/components/schemas/Noted" }),
      provider: add([text], { $ref: "#/components/schemas/Noted" }),
      providerDefs: { Noted: added },
      kind: "result",
      reason:
        'The new notes.add returns Noted without the field "note", which agent reads as string | null ' +
        "(a field that is not listed may have any value).",
      counterexample: { count: 0, note: false },
    },
    {
      name: "a widened result",
      consumer: add([text]),
      provider: add([text]),
      providerDefs: {
        Added: {
          type: "object",
          properties: { count: { type: "integer", format: "int64" } },
          required: ["count"],
        },
      },
      kind: "result",
      reason: "The new notes.add may return a result that agent cannot read: " +
        "at count: may be integer (int64), but must be integer 0..4294967295.",
      counterexample: { count: -1 },
    },
  ];
  for (const t of table) {
    const provider = t.provider && { method: t.provider, defs: t.providerDefs ?? defs };
    const v = checkMethod({ method: t.consumer, defs }, provider, labels);
    if (t.kind === undefined) {
      assert.ok(v.ok, `${t.name}: ${v.ok ? "" : v.reason}`);
      continue;
    }
    assert.ok(!v.ok, `${t.name}: expected a problem`);
    assert.equal(v.kind, t.kind, t.name);
    assert.equal(v.reason, t.reason, t.name);
    assert.deepEqual(v.counterexample, t.counterexample, t.name);
  }
});

Deno.test("signature shows a method as its consumer sees it", () => {
  const m = add([text, { name: "tag", schema: { type: ["string", "null"] } }]);
  assert.equal(signature(m, defs), "add(text: string, tag?: string | null) -> Added");
});
