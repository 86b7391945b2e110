import { strict as assert } from "node:assert";
import { BodyMemo } from "./body_memo.ts";

Deno.test("BodyMemo: found by bytes and context, bounded by its bytes", () => {
  const memo = new BodyMemo<string>(100);
  const a = new Uint8Array([1, 2, 3]);
  memo.set("c1", a, "A", 10);
  a[0] = 9; // the memo holds a copy
  assert.equal(memo.get("c1", new Uint8Array([1, 2, 3])), "A");
  assert.equal(memo.get("c2", new Uint8Array([1, 2, 3])), undefined);
  assert.equal(memo.get("c1", new Uint8Array([1, 2, 4])), undefined);
  assert.equal(memo.bytes, 13);
  memo.set("c1", new Uint8Array(200), "too big", 0); // never held
  assert.equal(memo.bytes, 13);
  memo.set("c1", new Uint8Array(50), "B", 40); // 13 + 90 > 100: emptied first
  assert.equal(memo.bytes, 90);
  assert.equal(memo.get("c1", new Uint8Array([1, 2, 3])), undefined);
  assert.equal(memo.get("c1", new Uint8Array(50)), "B");
});
