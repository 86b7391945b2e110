import { strict as assert } from "node:assert";
import { withoutNodeProbes } from "./glue_text.ts";

Deno.test("jco's probes for Node become false; the rest of the glue is untouched", () => {
  const glue = [
    "const _debugLog = (...args) => {",
    "  if (!globalThis?.process?.env?.JCO_DEBUG) { return; }",
    "};",
    "const isNode = typeof process !== 'undefined' && process.versions && process.versions.node;",
    "const other = typeof processes;",
  ].join("\n");
  assert.equal(
    withoutNodeProbes(glue),
    [
      "const _debugLog = (...args) => {",
      "  if (!false) { return; }",
      "};",
      "const isNode = false;",
      "const other = typeof processes;",
    ].join("\n"),
  );
});
