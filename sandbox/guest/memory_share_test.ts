import { strict as assert } from "node:assert";
import { MemoryShare } from "./memory_share.ts";

Deno.test("a memory share grants up to its limit and takes back what ended", () => {
  const share = new MemoryShare(100);
  assert.ok(share.take(60));
  assert.ok(!share.take(41), "past the limit");
  assert.ok(share.take(40));
  share.give(60);
  assert.equal(share.used, 40);
  assert.ok(share.take(60));
  assert.ok(!share.take(1));
});
