import { strict as assert } from "node:assert";
import { MAX_RANDOM_BYTES, randomInterfaces } from "./random.ts";

Deno.test("get-random-bytes past MAX_RANDOM_BYTES traps; up to it, fills", () => {
  const random = randomInterfaces()["wasi:random/random"] as {
    getRandomBytes(len: bigint): Uint8Array;
  };
  assert.throws(() => random.getRandomBytes(2n ** 63n), /at most 16777216 a call/);
  assert.equal(random.getRandomBytes(BigInt(MAX_RANDOM_BYTES)).length, MAX_RANDOM_BYTES);
});
