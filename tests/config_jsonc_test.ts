/**
 * Config files are JSONC (PROTOCOL 3): comments and trailing commas work in
 * each file the host reads, in a real host with a plugin built from Rust; a
 * syntax error names the file, line and column, and the host starts anyway.
 * (`config/agent.json` is tested with the agent in `agent_test.ts`,
 * `config/mcp.json` in `mcp/mcp_config_test.ts`.)
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { defaultLimits } from "../core/world/limits.ts";

const probe = await builtTestPlugin("probe");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** Starts a host with `files`, collecting what it reports on stderr meanwhile. */
async function startReporting(files: Record<string, string>) {
  const reported: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => reported.push(args.join(" "));
  try {
    return { h: await TestHost.start({ plugins: { probe }, files }), reported };
  } finally {
    console.error = original;
  }
}

Deno.test({
  name: "boot.json and limits.json take comments and trailing commas",
  ...opts,
}, async () => {
  const { h, reported } = await startReporting({
    "config/boot.json": `// started with the world
[
  {
    "method": "probe.serve", /* a detached server */
    "params": {"from": "boot",},
  },
]
`,
    "config/limits.json": `{
  // a small world
  "processes": 7,
  /* ten seconds of silence is a stall */ "stall_ms": 10000,
}`,
  });
  try {
    assert.deepEqual(reported, []);
    assert.equal(h.host.limits.processes, 7);
    assert.equal(h.host.limits.stall_ms, 10000);
    const p = await eventually(
      () => h.host.table.all().find((p) => p.method === "serve"),
      "the boot process",
      30_000,
    );
    assert.deepEqual(p.params, { from: "boot" });
  } finally {
    await h.close();
  }
});

Deno.test({
  name: "a syntax error in boot.json or limits.json names file:line:col, and the host starts",
  ...opts,
}, async () => {
  const { h, reported } = await startReporting({
    "config/boot.json": '[\n  {"method": "probe.serve"\n   "params": {}}\n]',
    "config/limits.json": '{\n  "processes": 7,\n  "sandboxes" 2\n}',
  });
  try {
    assert.deepEqual(reported, [
      "sausage: config/limits.json:3:15: a colon was expected: fix the file " +
      "(JSON with // or /* */ comments and trailing commas); every limit has its default",
    ]);
    assert.deepEqual(h.host.limits, defaultLimits(), "the defaults stand");
    const [event] = h.host.journal.query({ grep: '"event":"config-error"' });
    assert.ok(event, "the boot.json error is journaled");
    assert.equal(
      JSON.parse(event.line).error,
      "config/boot.json:3:4: a comma was expected: fix the file " +
        "(JSON with // or /* */ comments and trailing commas); no boot calls were made",
    );
    assert.equal(h.host.table.all().length, 0, "no boot call was made");
    assert.deepEqual(await h.result("probe.echo", { ok: 1 }), { ok: 1 }, "the host works");
  } finally {
    await h.close();
  }
});
