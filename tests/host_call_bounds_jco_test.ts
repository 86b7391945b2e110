/**
 * The attack suite of issue 35 (`host_call_bounds_test.ts`) on jco's path:
 * the same modules made components with the preview-1 command adapter, run
 * with `SAUSAGE_ENGINE=jco` in a `deno test` of their own (the engine is
 * read from the environment, which the modules beside this one share).
 */

import { strict as assert } from "node:assert";

Deno.test({
  name: "the attack suite on jco's path: every attack contained, every sleeper answers",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const suite = new URL("./host_call_bounds_test.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--quiet", "--allow-all", suite],
    env: { SAUSAGE_ENGINE: "jco", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const said = text.split("\n").filter((l) => /worst wait|probes|passed|FAILED/.test(l));
  console.log(said.join("\n"));
  assert.equal(out.code, 0, text.slice(-6000));
});
