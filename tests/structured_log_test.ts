/**
 * Structured logging (PROTOCOL 8, SDK `sausage_plugin::log`) end to end: a
 * plugin built from Rust with the SDK logs events with levels, fields and
 * spans beside a plain stderr line; the journal keeps them as columns;
 * `core.log` and `sausage log` filter on level and fields.
 */

import { strict as assert } from "node:assert";
import { builtCrate } from "./helpers/plugins.ts";
import { TestHost } from "./helpers/host.ts";
import { sausage } from "./helpers/cli.ts";
import type { Entry } from "../core/journal/journal.ts";

const sdkprobe = await builtCrate("sdk/tests/plugins/sdkprobe", "sdkprobe");

Deno.test({
  name: "structured events reach the journal as fields; core.log and sausage log filter them",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const h = await TestHost.start({ plugins: { sdkprobe } });
  try {
    assert.equal(await h.result("sdkprobe.log_events", { user: 7 }), 4);
    const log = (f: Record<string, unknown>) =>
      h.result<Entry[]>("core.log", { plugin: "sdkprobe", limit: 100, ...f });
    const all = (await log({})).filter((e) => e.stream === "stderr");
    const shape = ({ line, level, fields, span }: Entry) => ({ line, level, fields, span });
    assert.deepEqual(all.map(shape), [
      { line: "starting", level: "debug", fields: { user: 7 }, span: undefined },
      {
        line: "looked up the user",
        level: "info",
        fields: { user: 7, found: true, attempt: 1 },
        span: "request",
      },
      { line: "a plain line", level: undefined, fields: undefined, span: undefined },
      {
        line: "slow query (250 ms)",
        level: "warn",
        fields: { user: 7, ms: 250, table: "notes" },
        span: "request:db",
      },
      {
        line: "gave up",
        level: "error",
        fields: { user: 7, reason: "multi\nline" },
        span: "request",
      },
    ]);
    const lines = (entries: Entry[]) => entries.map((e) => e.line);
    assert.deepEqual(lines(await log({ level: "warn" })), ["slow query (250 ms)", "gave up"]);
    assert.deepEqual(lines(await log({ level: "info", fields: { found: true } })), [
      "looked up the user",
    ]);
    assert.deepEqual(lines(await log({ fields: { table: "notes", ms: 250 } })), [
      "slow query (250 ms)",
    ]);
    assert.deepEqual(await log({ fields: { user: "7" } }), [], "7 is a number, not a string");
    assert.deepEqual(lines(await log({ grep: "plain" })), ["a plain line"], "plain lines stay");
    const bad = await h.call("core.log", { level: "loud" });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /"level" must be one of trace, debug, info, warn, error/);

    await h.host.shutdown(1000);
    const warn = await sausage("log", h.root, "sdkprobe", "--level", "warn");
    assert.equal(warn.code, 0, warn.stderr);
    const out = warn.stdout.trim().split("\n");
    assert.equal(out.length, 2, warn.stdout);
    assert.match(
      out[0],
      / WARN request:db: slow query \(250 ms\) ms=250 table="notes" user=7$/,
    );
    assert.match(out[1], / ERROR request: gave up reason="multi\\nline" user=7$/);
    const field = await sausage("log", h.root, "--field", "attempt=1", "--field=found=true");
    assert.match(
      field.stdout.trim(),
      /INFO request: looked up the user attempt=1 found=true user=7$/,
    );
    assert.equal(field.stdout.trim().split("\n").length, 1, field.stdout);
    const plain = await sausage("log", h.root, "sdkprobe");
    assert.match(plain.stdout, / sdkprobe-\S+ a plain line$/m);
    assert.match(plain.stdout, / sdkprobe-\S+ DEBUG starting user=7$/m);
    const usage = await sausage("log", h.root, "--level", "loud");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--level needs one of trace, debug, info, warn, error/);
  } finally {
    await h.close();
  }
});
