import { strict as assert } from "node:assert";
import { detectWasiCc, isCcFailure, wasiCcEnv } from "./wasi_cc.ts";

Deno.test("a found WASI clang is handed to build scripts of both targets", async () => {
  const env = wasiCcEnv({
    cc: "/usr/bin/clang-14",
    ar: "/usr/bin/llvm-ar-14",
    cflags: "--target=wasm32-wasi --sysroot=/usr",
  });
  assert.deepEqual(Object.keys(env).sort(), [
    "AR_wasm32_wasip1",
    "AR_wasm32_wasip2",
    "CC_wasm32_wasip1",
    "CC_wasm32_wasip2",
    "CFLAGS_wasm32_wasip1",
    "CFLAGS_wasm32_wasip2",
  ]);
  const cc = await detectWasiCc();
  if (cc) {
    // What detection found compiles C with libc headers for WASI.
    assert.match(cc.cflags, /--target=wasm32-wasi --sysroot=/);
    assert.ok(Deno.statSync(cc.ar).isFile);
  }
});

Deno.test("a build script's failure to find a C compiler is recognised, a Rust error is not", () => {
  assert.ok(isCcFailure("error occurred: Failed to find tool. Is `clang` installed?"));
  assert.ok(isCcFailure('  --- stderr\n  error occurred: Command "clang" "-O3" "-c" failed'));
  assert.ok(!isCcFailure("error[E0425]: cannot find value `x` in this scope"));
});
