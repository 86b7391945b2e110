/** The mapping of host socket errors to `wasi:sockets/network.error-code`. */

import { strict as assert } from "node:assert";
import { guard, networkErrorCode, SocketStreamError, toSocketErrorCode } from "./socket_errors.ts";
import { IoError } from "./streams.ts";

Deno.test("Deno's errors map to their WIT codes", async () => {
  const held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = held.addr.port;
  assert.throws(() => guard(() => Deno.listen({ hostname: "127.0.0.1", port })), {
    payload: "address-in-use",
  });
  held.close();
  const refused = await Deno.connect({ hostname: "127.0.0.1", port }).catch((e) => e);
  assert.equal(toSocketErrorCode(refused), "connection-refused");
});

Deno.test("errno codes come first, class names next, anything else is unknown", () => {
  assert.equal(toSocketErrorCode({ code: "ECONNRESET", name: "AddrInUse" }), "connection-reset");
  assert.equal(toSocketErrorCode({ name: "TimedOut" }), "timeout");
  assert.equal(toSocketErrorCode({ code: "ENOTFOUND" }), "name-unresolvable");
  assert.equal(toSocketErrorCode(new Error("strange")), "unknown");
  assert.equal(toSocketErrorCode(undefined), "unknown");
});

Deno.test("guard passes WIT failures through and maps everything else", () => {
  assert.throws(() =>
    guard(() => {
      throw { payload: "would-block" };
    }), { payload: "would-block" });
  assert.throws(() =>
    guard(() => {
      throw new TypeError("boom");
    }), { payload: "unknown" });
  assert.equal(guard(() => 7), 7);
});

Deno.test("network-error-code reads the code of a socket stream error only", () => {
  const e = SocketStreamError.from(
    Object.assign(new Error("reset"), { code: "ECONNRESET" }),
    "read",
  );
  assert.equal(networkErrorCode(e), "connection-reset");
  assert.match(e.toDebugString(), /socket read failed \(connection-reset\)/);
  assert.equal(networkErrorCode(new IoError("a file error", "io")), undefined);
});
