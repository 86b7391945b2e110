import { strict as assert } from "node:assert";
import metaSchema from "@json-schema-tools/meta-schema/schema.json" with { type: "json" };
import {
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SCHEMA_VALUE_KEYWORDS,
} from "./schema_keywords.ts";
import { findUnresolvedRefs } from "./schema_scope.ts";

Deno.test("the schema keywords cover draft-07's meta-schema, each in one list", () => {
  const props = (metaSchema as unknown as {
    definitions: { JSONSchemaObject: { properties: Record<string, unknown> } };
  }).definitions.JSONSchemaObject.properties;
  const text = (v: unknown) => JSON.stringify(v);
  for (const [k, v] of Object.entries(props)) {
    const t = text(v);
    if (t === '{"$ref":"#"}' || k === "items") assert.ok(SCHEMA_VALUE_KEYWORDS.has(k), k);
    else if (t === '{"$ref":"#/definitions/schemaArray"}') {
      assert.ok(SCHEMA_LIST_KEYWORDS.has(k), k);
    } else if (k === "properties" || k === "patternProperties") {
      assert.ok(SCHEMA_MAP_KEYWORDS.has(k), k);
    } else {
      for (const list of [SCHEMA_VALUE_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS]) {
        assert.ok(!list.has(k), `${k} holds no schema`);
      }
    }
  }
  const all = [...SCHEMA_VALUE_KEYWORDS, ...SCHEMA_LIST_KEYWORDS, ...SCHEMA_MAP_KEYWORDS];
  assert.equal(new Set(all).size, all.length, "no keyword in two lists");
});

Deno.test("a walk of subschemas (findUnresolvedRefs) reaches under every schema keyword", () => {
  const bad = (name: string) => ({ $ref: `#/missing/${name}` });
  const schema: Record<string, unknown> = { $defs: { d: bad("defs") } };
  for (const k of SCHEMA_VALUE_KEYWORDS) schema[k] = bad(k);
  for (const k of SCHEMA_LIST_KEYWORDS) schema[k] = [true, bad(k)];
  for (const k of SCHEMA_MAP_KEYWORDS) schema[k] = { a: bad(k) };
  const found = findUnresolvedRefs(schema, {}).sort();
  const want = [...SCHEMA_VALUE_KEYWORDS, ...SCHEMA_LIST_KEYWORDS, ...SCHEMA_MAP_KEYWORDS, "defs"]
    .map((k) => `#/missing/${k}`).sort();
  assert.deepEqual(found, want);
  assert.deepEqual(findUnresolvedRefs({ items: [bad("tuple"), true] }, {}), ["#/missing/tuple"]);
});
