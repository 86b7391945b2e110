import { strict as assert } from "node:assert";
import { DEFAULT_SPEC, parseCaseSpec } from "./case_spec.ts";

Deno.test("a case without a spec runs with no arguments, no environment and no root", () => {
  assert.deepEqual(parseCaseSpec(undefined), DEFAULT_SPEC);
});

Deno.test("the legacy spec gives args, env, root, exit code and expected output", () => {
  assert.deepEqual(
    parseCaseSpec({
      args: ["a", "b"],
      env: { a: "text", c: "new\nline" },
      root: "fs-tests.dir",
      exit_code: 33,
      stdout: "hello",
    }),
    {
      args: ["a", "b"],
      env: { a: "text", c: "new\nline" },
      root: "fs-tests.dir",
      exitCode: 33,
      stdout: "hello",
      stderr: "",
    },
  );
});

Deno.test("operations: run, read and wait are folded into one spec", () => {
  assert.deepEqual(
    parseCaseSpec({
      operations: [
        { type: "run", args: ["x"], env: { K: "v" } },
        { type: "read", payload: "out" },
        { type: "read", id: "stderr", payload: "err" },
        { type: "wait", exit_code: 1 },
      ],
    }),
    { args: ["x"], env: { K: "v" }, root: null, exitCode: 1, stdout: "out", stderr: "err" },
  );
});

Deno.test("cases that need the runner's servers or a proposal say why they cannot apply", () => {
  assert.match(
    (parseCaseSpec({ proposals: ["http"], operations: [] }) as { reason: string }).reason,
    /http/,
  );
  assert.match(
    (parseCaseSpec({ operations: [{ type: "run" }, { type: "connect" }] }) as { reason: string })
      .reason,
    /connect/,
  );
  assert.match(
    (parseCaseSpec({ world: "wasi:http/service" }) as { reason: string }).reason,
    /wasi:http\/service/,
  );
});

Deno.test("a malformed spec is refused", () => {
  assert.throws(() => parseCaseSpec({ args: "not a list" }), /args must be a list/);
  assert.throws(() => parseCaseSpec({ env: { a: 1 } }), /env\.a must be a string/);
});
