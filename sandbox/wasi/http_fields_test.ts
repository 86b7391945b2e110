/** `wasi:http/types.fields`: checked names and values, forbidden and immutable fields. */

import { strict as assert } from "node:assert";
import { FieldList, Fields } from "./http_fields.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("names are case-insensitive and kept in lower case, in order", () => {
  const f = Fields.fromList([["X-One", bytes("1")], ["x-two", bytes("2")], ["X-ONE", bytes("3")]]);
  assert.deepEqual(f.get("x-one"), [bytes("1"), bytes("3")]);
  assert.ok(f.has("X-Two"));
  assert.deepEqual(f.entries().map(([n]) => n), ["x-one", "x-two", "x-one"]);
  f.set("x-one", [bytes("9")]);
  f.append("x-three", bytes("3"));
  f.delete("x-two");
  assert.deepEqual(f.entries(), [["x-one", bytes("9")], ["x-three", bytes("3")]]);
});

Deno.test("bad names and values are invalid-syntax, connection headers are forbidden", () => {
  const f = new Fields();
  assert.throws(() => f.append("bad name", bytes("x")), { payload: { tag: "invalid-syntax" } });
  assert.throws(() => f.append("x-ok", bytes("a\r\nb")), { payload: { tag: "invalid-syntax" } });
  assert.throws(() => Fields.fromList([["Transfer-Encoding", bytes("chunked")]]), {
    payload: { tag: "forbidden" },
  });
  assert.throws(() => f.set("connection", [bytes("close")]), { payload: { tag: "forbidden" } });
});

Deno.test("a view of a request's fields is immutable; its clone is not", () => {
  const list = new FieldList([["x-a", bytes("1")]]);
  const view = new Fields(list, true);
  assert.throws(() => view.append("x-b", bytes("2")), { payload: { tag: "immutable" } });
  assert.throws(() => view.delete("x-a"), { payload: { tag: "immutable" } });
  const copy = view.clone();
  copy.append("x-b", bytes("2"));
  assert.equal(list.entries.length, 1);
  assert.equal(copy.entries().length, 2);
});

Deno.test("fields convert to and from fetch headers as latin-1 bytes", () => {
  const list = FieldList.fromHeaders(new Headers({ "X-Caf": "caf\u00e9" }));
  assert.deepEqual(list.entries, [["x-caf", new Uint8Array([0x63, 0x61, 0x66, 0xe9])]]);
  assert.equal(list.toHeaders().get("x-caf"), "caf\u00e9");
});
