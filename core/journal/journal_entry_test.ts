import { strict as assert } from "node:assert";
import { boundEntry, bytePrefix } from "./journal_entry.ts";

Deno.test("boundEntry keeps short lines as they are, and cuts long ones to a prefix with their length", () => {
  assert.equal(boundEntry("stdout", "hello", 1024), "hello");
  const long = "é".repeat(1000); // 2000 bytes of UTF-8
  const cut = boundEntry("stderr", long, 256);
  assert.ok(new TextEncoder().encode(cut).length <= 256, cut);
  assert.match(cut, /^é+… \[truncated: 2000 bytes in all\]$/);
  assert.equal(bytePrefix("aé", 2).prefix, "a", "never half a character");
});

Deno.test("boundEntry keeps a core event an object with its fields, the big ones cut", () => {
  const line = JSON.stringify({ event: "start", method: "m", params: { big: "x".repeat(10_000) } });
  const kept = JSON.parse(boundEntry("core", line, 1024));
  assert.equal(kept.event, "start");
  assert.equal(kept.method, "m");
  assert.equal(kept.params.truncated, true);
  assert.equal(kept.params.bytes, JSON.stringify({ big: "x".repeat(10_000) }).length);
  assert.ok(kept.params.prefix.startsWith('{"big":"xxx'));
  const notJson = JSON.parse(boundEntry("core", "y".repeat(5000), 1024));
  assert.equal(notJson.event, "truncated");
  assert.equal(notJson.bytes, 5000);
});
