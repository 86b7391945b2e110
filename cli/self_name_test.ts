import { strict as assert } from "node:assert";
import { selfName } from "./self_name.ts";

Deno.test("selfName: the launcher's relative path as typed, else sausage", () => {
  assert.equal(selfName("./sausage"), "./sausage");
  assert.equal(selfName("../sausage/sausage"), "../sausage/sausage");
  assert.equal(selfName("/usr/local/bin/sausage"), "sausage");
  assert.equal(selfName("sausage"), "sausage");
  assert.equal(selfName(undefined), "sausage");
  assert.equal(selfName("./my dir/sausage"), "sausage");
});
