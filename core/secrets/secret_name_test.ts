import { strict as assert } from "node:assert";
import { isSecretName, secretNameProblem } from "./secret_name.ts";

Deno.test("secret names: a letter or _ first, then letters, digits and _, at most 128", () => {
  for (const good of ["OPENAI_API_KEY", "_x", "a", "Db2_password", "A" + "b".repeat(127)]) {
    assert.ok(isSecretName(good), good);
    assert.equal(secretNameProblem(good), null);
  }
  for (const bad of ["", "2FA", "a-b", "a.b", "../x", "a b", "é", "A" + "b".repeat(128), "x\n"]) {
    assert.ok(!isSecretName(bad), JSON.stringify(bad));
    assert.match(secretNameProblem(bad)!, /is not a secret's name \(\[A-Za-z_\]/);
  }
  assert.match(secretNameProblem(7)!, /must be a string, not number/);
  assert.ok(secretNameProblem("x".repeat(500))!.length < 120, "a long name is shortened");
});
