import { strict as assert } from "node:assert";
import { unusedPatchFilter } from "./patch_note.ts";

Deno.test("unusedPatchFilter drops the unused-patch notes of our crates with their help lines", () => {
  const stderr = [
    "warning: patch `wit-bindgen v0.45.1 (/c/toolchain/wit-bindgen-0.45.1)` was not used in the crate graph.",
    "help: Check that the patched package version and available features are compatible",
    "      with the dependency requirements. If the patch has a different version from",
    "   Compiling notes v0.1.0 (/w/plugins/notes)",
    "warning: patch `sausage-plugin-macros v0.1.0 (/sdk/sausage-plugin-macros)` was not used in the crate graph.",
    "help: Check that the patched package version",
    "warning: patch `serde v1.0.0 (/x/serde)` was not used in the crate graph.",
    "help: someone else's patch stays",
    "warning: unused variable: `x`",
    "    Finished `release` profile",
  ];
  const keep = unusedPatchFilter();
  assert.deepEqual(stderr.filter(keep), [
    "   Compiling notes v0.1.0 (/w/plugins/notes)",
    "warning: patch `serde v1.0.0 (/x/serde)` was not used in the crate graph.",
    "help: someone else's patch stays",
    "warning: unused variable: `x`",
    "    Finished `release` profile",
  ]);
});
