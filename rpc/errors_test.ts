/** The host error type and its one table of wire codes. */

import { strict as assert } from "node:assert";
import { ErrorCode, HostError, RpcError, toErrorObject, WIRE_CODES } from "./errors.ts";

Deno.test("a host error travels as the wire code of its table entry, with its data", () => {
  assert.deepEqual(toErrorObject(new HostError("invalid-params", '"path" must be a string')), {
    code: ErrorCode.InvalidParams,
    message: '"path" must be a string',
  });
  assert.deepEqual(toErrorObject(new HostError("limit-reached", "too many", { limit: 3 })), {
    code: -32004,
    message: "too many",
    data: { limit: 3 },
  });
  for (const [code, wire] of Object.entries(WIRE_CODES)) {
    assert.ok(Object.values(ErrorCode).includes(wire), `${code} maps to a named wire code`);
  }
});

Deno.test("a host fault keeps its cause and travels as -32603; a wire error passes as it came", () => {
  const cause = new TypeError("x is undefined");
  const fault = HostError.fault(cause, "serving /run");
  assert.equal(fault.code, "host-fault");
  assert.equal(fault.cause, cause);
  assert.equal(fault.message, "serving /run failed: TypeError: x is undefined");
  assert.equal(toErrorObject(fault).code, ErrorCode.InternalError);
  assert.deepEqual(toErrorObject(new RpcError(-32042, "its own code")), {
    code: -32042,
    message: "its own code",
  });
  assert.deepEqual(toErrorObject(new Error("boom")), { code: -32603, message: "boom" });
});
