import { strict as assert } from "node:assert";
import { HostError } from "./errors.ts";
import { optionalParam, stringParam } from "./params.ts";

function invalidParams(f: () => unknown, message: string): void {
  assert.throws(f, (e) =>
    e instanceof HostError && e.code === "invalid-params" &&
    e.message === message);
}

Deno.test("stringParam returns a string param and refuses anything else with -32602", () => {
  assert.equal(stringParam({ path: "/a" }, "path"), "/a");
  invalidParams(() => stringParam({}, "path"), `"path" must be a string`);
  invalidParams(() => stringParam({ path: 1 }, "path"), `"path" must be a string`);
});

Deno.test("optionalParam takes a missing or null param as absent and checks the type of the rest", () => {
  assert.equal(optionalParam({}, "wait", "boolean"), undefined);
  assert.equal(optionalParam({ wait: null }, "wait", "boolean"), undefined);
  assert.equal(optionalParam({ wait: false }, "wait", "boolean"), false);
  assert.equal(optionalParam({ limit: 3 }, "limit", "number"), 3);
  invalidParams(() => optionalParam({ limit: "3" }, "limit", "number"), `"limit" must be a number`);
});
