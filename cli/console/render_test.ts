import { strict as assert } from "node:assert";
import { columns, indent, renderError, renderNotification, renderResult } from "./render.ts";
import { makeStyle } from "./style.ts";

const plain = makeStyle(false);

Deno.test("results are JSON indented below the input", () => {
  assert.equal(renderResult({ count: 1 }), '  {\n    "count": 1\n  }');
  assert.equal(indent("a\n\nb"), "  a\n\n  b", "empty lines stay empty");
});

Deno.test("errors: code and message, then data; a refused activation is its text", () => {
  assert.equal(
    renderError({ code: -32042, message: "asked to fail", data: { n: 1 } }, plain),
    '  error -32042: asked to fail\n  {"n":1}',
  );
  assert.equal(
    renderError({ code: -32003, message: "notes was not activated\n- why", data: {} }, plain),
    "  error -32003: notes was not activated\n  - why",
  );
});

Deno.test("notifications: text as it is, others by name and params", () => {
  assert.equal(renderNotification("text", { text: "thinking" }, plain), "  thinking");
  assert.equal(renderNotification("tick", { i: 0 }, plain, "[1] "), '  [1] · tick {"i":0}');
});

Deno.test("names in columns, down then across", () => {
  assert.equal(columns(["a", "bb", "c"], 12), "a   c\nbb");
  assert.equal(columns([], 80), "");
});
