import { strict as assert } from "node:assert";
import { ErrorCode } from "./errors.ts";
import { errorResponse, parseLine, response } from "./message.ts";

Deno.test("response and errorResponse make the two kinds of answer", () => {
  assert.deepEqual(response(7, { ok: true }), { jsonrpc: "2.0", id: 7, result: { ok: true } });
  assert.deepEqual(errorResponse(null, { code: ErrorCode.InvalidParams, message: "no" }), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32602, message: "no" },
  });
});

Deno.test("an answer's error object keeps its fields, and gets a code and a message it lacks", () => {
  const kept = parseLine('{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":3}}');
  assert.deepEqual(kept, {
    kind: "response",
    msg: errorResponse(1, { code: -32001, message: "m", data: 3 }),
  });
  const mended = parseLine('{"jsonrpc":"2.0","id":"p","error":{"why":"x"}}');
  assert.deepEqual(mended, {
    kind: "response",
    msg: {
      jsonrpc: "2.0",
      id: "p",
      error: { why: "x", code: ErrorCode.InternalError, message: "an error without a message" },
    },
  });
});

Deno.test("malformed requests are invalid with the spec's codes", () => {
  const batch = parseLine('[{"jsonrpc":"2.0","id":1,"method":"a"}]');
  assert.equal(batch.kind === "invalid" && batch.error.code, ErrorCode.InvalidRequest);
  const params = parseLine('{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}');
  assert.equal(params.kind === "invalid" && params.error.code, ErrorCode.InvalidParams);
});
