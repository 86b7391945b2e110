import { strict as assert } from "node:assert";
import { ReverseSearch } from "./reverse_search.ts";

Deno.test("Ctrl-R finds the newest match, then older ones; Backspace widens the search", () => {
  const s = new ReverseSearch(["notes.list", 'notes.add {"text": "b"}', "ps", 'notes.add {"a"}']);
  s.type("add");
  assert.equal(s.match(), 'notes.add {"text": "b"}');
  assert.equal(s.at(), 6);
  s.older();
  assert.equal(s.match(), 'notes.add {"a"}');
  s.older();
  assert.equal(s.match(), 'notes.add {"a"}', "no older match: the match stays");
  s.type("x");
  assert.equal(s.match(), undefined);
  s.backspace();
  assert.equal(s.match(), 'notes.add {"text": "b"}');
});
