import { strict as assert } from "node:assert";
import { parseToolFilter } from "./mcp_config.ts";

Deno.test("without config/mcp.json, cargo.* and core.* are left out", () => {
  const f = parseToolFilter(undefined);
  assert.ok(f.allows("notes.add"));
  assert.ok(!f.allows("cargo.build"));
  assert.ok(!f.allows("core.activate"));
});

Deno.test("exclude replaces the default; include keeps only what it names", () => {
  const f = parseToolFilter(
    '{"exclude": ["secrets.*", "notes.list"], "include": ["notes.*", "secrets.get", "cargo.*"]}',
  );
  assert.ok(f.allows("notes.add"));
  assert.ok(!f.allows("notes.list"));
  assert.ok(!f.allows("secrets.get"));
  assert.ok(!f.allows("www.start"));
  assert.ok(f.allows("cargo.build"), "exclude given without cargo.*");
});

Deno.test("a config that is not valid is an error that names the problem", () => {
  assert.throws(
    () => parseToolFilter("{"),
    /config\/mcp.json:1:2: a closing } was expected: fix the file/,
  );
  const commented = parseToolFilter('{\n  // hide\n  "exclude": ["secrets.*",],\n}');
  assert.equal(commented.allows("secrets.get"), false);
  assert.equal(commented.allows("notes.add"), true);
  assert.throws(() => parseToolFilter('{"exclude": "secrets.*"}'), /"exclude" must be a list/);
  assert.throws(() => parseToolFilter('{"exlude": []}'), /unknown key "exlude"/);
  assert.throws(() => parseToolFilter("[]"), /must be a JSON object/);
});
