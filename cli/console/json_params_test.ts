import { strict as assert } from "node:assert";
import { parseParamsText } from "./json_params.ts";

Deno.test("params: empty is {}, an object is itself", () => {
  assert.deepEqual(parseParamsText("  "), { ok: true, params: {} });
  assert.deepEqual(parseParamsText('{"n": [1]}'), { ok: true, params: { n: [1] } });
});

Deno.test("a JSON error gives the column of the first character that cannot be right", () => {
  const cases: [string, number][] = [
    ["{text: 1}", 2],
    ['{"text": eggs}', 10],
    ['{"a": 1,}', 9],
    ['{"a": ', 7],
    ['{"a": 1} x', 10],
    ['{"a": "\\u00e9", "b": x}', 22],
  ];
  for (const [text, column] of cases) {
    const r = parseParamsText(text);
    assert.equal(r.ok, false, text);
    if (!r.ok) assert.equal(r.column, column, text);
  }
});

Deno.test("a JSON error's message has no position and no copy of the input", () => {
  const r = parseParamsText('{"text": eggs}');
  assert.deepEqual(r, { ok: false, column: 10, message: "Unexpected token 'e'" });
});
