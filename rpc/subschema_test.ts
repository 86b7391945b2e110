import assert from "node:assert/strict";
import type { JsonSchema, JsonSchemaObject } from "./json_schema.ts";
import { formatPath, isSubschema } from "./subschema.ts";
import { compileSchema } from "./schema_validator.ts";
import { samples } from "./schema_sample.ts";
import { rootNode } from "./schema_scope.ts";

/** A small deterministic random source (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const maybe = (r: Rng, p = 0.5) => r() < p;

const KEYS = ["a", "b", "c"];
const NUMBERS = [-1, 0, 1, 5, 255, 256, 65535, 65536, 0.5, -2147483649];
const STRINGS = [
  "",
  "a",
  "b",
  "ab",
  "1970-01-01",
  "1970-01-01T00:00:00Z",
  "00000000-0000-0000-0000-000000000000",
];

/** A random schema of the subset that Rust types produce. */
function schema(r: Rng, depth: number): JsonSchema {
  const leaf = depth <= 0;
  switch (pick(r, leaf ? [0, 1, 2, 3, 4, 5] : [0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 8, 9])) {
    case 0: {
      const s: JsonSchemaObject = { type: "integer" };
      if (maybe(r)) s.format = pick(r, ["uint8", "uint16", "int32", "uint32"]);
      if (maybe(r, 0.3)) s.minimum = pick(r, [0, 1, 5]);
      if (maybe(r, 0.3)) s.maximum = pick(r, [5, 255, 65535]);
      return s;
    }
    case 1:
      return maybe(r) ? { type: "number" } : { type: "number", minimum: pick(r, [0, 1]) };
    case 2: {
      const s: JsonSchemaObject = { type: "string" };
      if (maybe(r, 0.3)) s.format = pick(r, ["date", "date-time", "uuid"]);
      if (maybe(r, 0.3)) s.minLength = pick(r, [1, 2]);
      if (maybe(r, 0.2)) s.maxLength = pick(r, [1, 2]);
      return s;
    }
    case 3:
      return pick(r, [{ type: "boolean" }, { type: "null" }, true]);
    case 4: {
      const values: unknown[] = [...KEYS, 1, null].filter(() => maybe(r, 0.4));
      return { enum: values.length ? values : ["a"] };
    }
    case 5:
      return { type: [pick(r, ["integer", "string", "boolean"]), "null"] };
    case 6: {
      const props = KEYS.filter(() => maybe(r, 0.6));
      const s: JsonSchemaObject = {
        type: "object",
        properties: Object.fromEntries(props.map((k) => [k, schema(r, depth - 1)])),
        required: props.filter(() => maybe(r)),
      };
      if (maybe(r, 0.3)) s.additionalProperties = maybe(r) ? false : schema(r, depth - 1);
      return s;
    }
    case 7: {
      const s: JsonSchemaObject = { type: "array", items: schema(r, depth - 1) };
      if (maybe(r, 0.2)) s.minItems = 1;
      if (maybe(r, 0.2)) s.maxItems = 2;
      if (maybe(r, 0.2)) s.uniqueItems = true;
      return s;
    }
    case 8:
      return { [maybe(r) ? "anyOf" : "oneOf"]: [schema(r, depth - 1), schema(r, depth - 1)] };
    default:
      return { anyOf: [schema(r, depth - 1), { type: "null" }] };
  }
}

/** The schema with one random change, so that pairs are often close to each other. */
function mutate(r: Rng, s: JsonSchema, depth: number): JsonSchema {
  if (typeof s === "boolean" || maybe(r, 0.15)) return schema(r, depth);
  const out: JsonSchemaObject = structuredClone(s);
  if (out.properties && maybe(r, 0.7)) {
    const keys = Object.keys(out.properties);
    const op = pick(r, ["child", "drop", "add", "require", "unrequire", "close"]);
    const k = keys.length ? pick(r, keys) : "a";
    if (op === "child" && keys.length) out.properties[k] = mutate(r, out.properties[k], depth - 1);
    if (op === "drop") delete out.properties[k];
    if (op === "add") out.properties[pick(r, KEYS)] = schema(r, depth - 1);
    if (op === "require") out.required = [...new Set([...(out.required ?? []), k])];
    if (op === "unrequire") out.required = (out.required ?? []).filter((x) => x !== k);
    if (op === "close") out.additionalProperties = false;
    return out;
  }
  if (out.items !== undefined && !Array.isArray(out.items) && maybe(r, 0.7)) {
    out.items = mutate(r, out.items, depth - 1);
    return out;
  }
  const union = out.anyOf ?? out.oneOf;
  if (union && maybe(r, 0.7)) {
    const i = Math.floor(r() * union.length);
    union[i] = mutate(r, union[i], depth - 1);
    return out;
  }
  if (Array.isArray(out.enum)) {
    out.enum = out.enum.length > 1 && maybe(r) ? out.enum.slice(1) : [...out.enum, pick(r, KEYS)];
    return out;
  }
  if (out.type === "integer" || out.type === "number") {
    if (maybe(r)) out.minimum = pick(r, [0, 1, 5]);
    else out.maximum = pick(r, [5, 255, 65535]);
    if (maybe(r, 0.3)) delete out.format;
    return out;
  }
  return maybe(r) ? { anyOf: [out, { type: "null" }] } : schema(r, depth);
}

/** A random JSON value near the edges of the schemas above. */
function value(r: Rng, depth: number): unknown {
  switch (pick(r, depth <= 0 ? [0, 1, 2, 3] : [0, 1, 2, 3, 4, 5])) {
    case 0:
      return pick(r, NUMBERS);
    case 1:
      return pick(r, STRINGS);
    case 2:
      return pick(r, [true, false]);
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth - 1));
    default:
      return Object.fromEntries(
        [...KEYS, "extra"].filter(() => maybe(r, 0.4)).map((k) => [k, value(r, depth - 1)]),
      );
  }
}

Deno.test("property: an ok is never contradicted, a counterexample always holds", () => {
  const r = random(20260101);
  let oks = 0, failures = 0, counterexamples = 0;
  for (let i = 0; i < 600; i++) {
    const a = schema(r, 2);
    const b = mutate(r, a, 2);
    for (const [sub, sup] of [[a, b], [b, a]]) {
      const v = isSubschema(sub, {}, sup, {});
      const vSub = compileSchema(sub, {}), vSup = compileSchema(sup, {});
      const show = `sub ${JSON.stringify(sub)}\nsup ${JSON.stringify(sup)}`;
      if (v.ok) {
        oks++;
        const values = [
          ...samples(rootNode(sub, {})),
          ...Array.from({ length: 150 }, () => value(r, 2)),
        ];
        for (const x of values) {
          if (vSub(x)) {
            assert.ok(vSup(x), `ok, but ${JSON.stringify(x)} is a counterexample\n${show}`);
          }
        }
      } else {
        failures++;
        if ("counterexample" in v) {
          counterexamples++;
          assert.ok(
            vSub(v.counterexample) && !vSup(v.counterexample),
            `false counterexample\n${show}`,
          );
        }
      }
    }
  }
  // The generator must exercise both outcomes.
  assert.ok(oks > 200 && failures > 200, `oks ${oks}, failures ${failures}`);
  assert.ok(
    counterexamples > failures * 0.8,
    `${counterexamples} counterexamples for ${failures} failures`,
  );
});

Deno.test("formatPath writes fields, positions, items and other fields", () => {
  assert.equal(
    formatPath([{ key: "a" }, { each: "item" }, { key: "b c" }, { index: 2 }, { each: "value" }]),
    'a[]["b c"][2].*',
  );
});
