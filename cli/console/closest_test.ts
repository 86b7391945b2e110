import { strict as assert } from "node:assert";
import { closest, editDistance } from "./closest.ts";

Deno.test("edit distance counts a swap of neighbours as one edit", () => {
  assert.equal(editDistance("methods", "methods"), 0);
  assert.equal(editDistance("mehtods", "methods"), 1);
  assert.equal(editDistance("lss", "ls"), 1);
  assert.equal(editDistance("hello", "help"), 2);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("closest finds a typo or a prefix, and nothing for an unrelated word", () => {
  assert.equal(closest("ad", ["add", "list"]), "add");
  assert.equal(closest("lsit", ["add", "list"]), "list");
  assert.equal(closest("frobnicate", ["ls", "cat", "help"]), undefined);
  assert.equal(closest("x", ["ls", "ps"]), undefined);
});
