/**
 * Limits for the world and for time (issue 23, item 4; PROTOCOL 4.9): the
 * world's memory bound (`world_memory_mib`), the time limit of a call
 * (`call_timeout_ms`, a caller's `timeout_ms`, `call_timeout_max_ms`), and
 * plugins that fail every call (`failing_calls`, `failing_hold_ms`). Real
 * hosts, the real probe component, real sandboxes.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { sausage } from "./helpers/cli.ts";
import { ErrorCode } from "../rpc/errors.ts";
import type { Response } from "../rpc/message.ts";

const probe = await builtTestPlugin("probe");
const test = hostTests({ plugins: { probe } });

/** `config/limits.json` with these limits. */
const limits = (json: Record<string, number>) => ({ "config/limits.json": JSON.stringify(json) });

/** The `data` of an error response. */
const data = (r: Response) => r.error?.data as Record<string, unknown> | undefined;

/** Journal lines of the core that contain `text`. */
function coreEvents(h: TestHost, text: string): Record<string, unknown>[] {
  h.host.journal.flush();
  return h.host.journal.query({ grep: text, limit: 1000 }).map((e) => JSON.parse(e.line));
}

test(
  "a world memory bomb: grows past world_memory_mib get -32004, the host lives",
  async (h) => {
    // 10 x 32 MiB held at once is 320 MiB; the world allows 96 (this host has one sandbox: all
    // of it). Small, so that a loaded machine pages in little (the mechanism is the same at 30 x
    // 200 MiB); stall_ms is long because touching pages on such a machine is slow.
    const calls = Array.from({ length: 10 }, () => h.call("probe.hog", { mb: 32, hold_ms: 500 }));
    const answers = await Promise.all(calls);
    const held = answers.filter((r) => (r.result as { held_mb?: number })?.held_mb === 32);
    const refused = answers.filter((r) => r.error?.code === ErrorCode.LimitReached);
    assert.equal(held.length + refused.length, 10, JSON.stringify(answers.find((r) => r.error)));
    assert.ok(held.length >= 1, "what fits is held");
    assert.ok(refused.length >= 1, "what does not fit is refused");
    for (const r of refused) {
      assert.equal(data(r)?.limit, "world_memory_mib");
      assert.equal(data(r)?.value, 96);
      assert.match(
        r.error!.message,
        /world memory limit: .*"world_memory_mib" in config\/limits\.json/,
      );
    }
    assert.equal(
      coreEvents(h, '"event":"limit","limit":"world_memory_mib"').length,
      refused.length,
    );
    // Nothing was lost: the same sandbox answers, and the memory came back.
    assert.deepEqual(await h.result("probe.echo", { alive: true }), { alive: true });
    assert.deepEqual(await h.result("probe.hog", { mb: 64 }), { held_mb: 64 });
    assert.ok(!answers.some((r) => /sandbox was lost/.test(r.error?.message ?? "")));
  },
  limits({ world_memory_mib: 96, stall_ms: 120_000 }),
);

test(
  "an endless loop ends at call_timeout_ms with -32002 that says it was the time limit",
  async (h) => {
    const started = Date.now();
    const r = await h.call("probe.spin");
    const took = Date.now() - started;
    assert.equal(r.error?.code, ErrorCode.NoAnswer);
    assert.equal(data(r)?.limit, "call_timeout_ms");
    assert.equal(data(r)?.value, 1500);
    assert.match(r.error!.message, /was killed \(time limit: no answer within 1500 ms/);
    assert.ok(took >= 1400 && took < 8000, `ended at the limit: ${took} ms`);
    assert.equal(coreEvents(h, '"event":"limit","limit":"call_timeout_ms"').length, 1);
    // A call that answers in time is untouched, and the host goes on.
    assert.deepEqual(await h.result("probe.sleep", { ms: 200 }), { slept: 200 });
  },
  limits({ call_timeout_ms: 1500 }),
);

test(
  "a caller lowers (and raises, within call_timeout_max_ms) its call's time limit",
  async (h) => {
    const started = Date.now();
    const lowered = await h.call("core.call", { method: "probe.spin", timeout_ms: 700 });
    assert.equal(lowered.error?.code, ErrorCode.NoAnswer, JSON.stringify(lowered));
    assert.equal(data(lowered)?.value, 700);
    assert.ok(Date.now() - started < 5000);
    // The default here is 3 s; the caller raises it to 8 s for a call of 3.5 s.
    assert.deepEqual(
      await h.result("core.call", {
        method: "probe.sleep",
        params: { ms: 3500 },
        timeout_ms: 8000,
      }),
      { slept: 3500 },
    );
    const slow = await h.call("probe.sleep", { ms: 3500 });
    assert.equal(data(slow)?.limit, "call_timeout_ms", JSON.stringify(slow));
    const over = await h.call("core.call", { method: "probe.noop", timeout_ms: 10_001 });
    assert.equal(over.error?.code, ErrorCode.InvalidParams);
    assert.match(over.error!.message, /"timeout_ms" must be an integer from 1 to 10000/);
  },
  limits({ call_timeout_ms: 3000, call_timeout_max_ms: 10_000 }),
);

test(
  "a nested call has the default time limit; its caller, with a higher one, gets the -32002",
  async (h) => {
    const nested = await h.result<Response>("core.call", {
      method: "probe.call",
      params: { method: "probe.spin", params: {} },
      timeout_ms: 8000,
    });
    assert.equal(nested.error?.code, ErrorCode.NoAnswer, JSON.stringify(nested));
    assert.equal(data(nested)?.limit, "call_timeout_ms");
    assert.equal(data(nested)?.value, 1500);
  },
  limits({ call_timeout_ms: 1500, call_timeout_max_ms: 10_000 }),
);

Deno.test({
  name: "sausage call --timeout-ms ends an endless loop with a clear error",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const root = await makeWorld({ plugins: { probe } });
    try {
      const started = Date.now();
      const r = await sausage("call", root, "probe.spin", "--timeout-ms", "1000", "--json");
      assert.equal(r.code, 1);
      const error = JSON.parse(r.stderr);
      assert.equal(error.code, ErrorCode.NoAnswer);
      assert.equal(error.data.limit, "call_timeout_ms");
      assert.match(error.message, /time limit: no answer within 1000 ms/);
      assert.ok(Date.now() - started < 15_000);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

test(
  "a plugin that fails every call is reported: a failing event, /proc/core/failing.json",
  async (h) => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await h.call("probe.panic")).error?.code, ErrorCode.NoAnswer);
    }
    const [failing] = coreEvents(h, '"event":"failing"');
    assert.equal(failing.plugin, "probe");
    assert.equal(failing.calls, 3);
    assert.match(String(failing.last), /trapped/);
    // Reported, not held back (failing_hold_ms is 0): the next call runs and reads the report.
    const text = await h.result<string>("probe.read_file", { path: "/proc/core/failing.json" });
    const report = JSON.parse(text);
    assert.equal(report.probe.calls, 3);
    assert.equal(report.probe.held_until, undefined);
    // That call answered: the streak is over once it has ended.
    await eventually(
      () => Object.keys(h.host.supervisor.failing.snapshot()).length === 0,
      "the report to go",
    );
    assert.equal(coreEvents(h, '"event":"recovered"').length, 1);
  },
  limits({ failing_calls: 3 }),
);

test(
  "with failing_hold_ms, a failing plugin's new calls are refused with -32004 for that long",
  async (h) => {
    for (let i = 0; i < 2; i++) await h.call("probe.exit", { code: 3 });
    const held = await h.call("probe.echo", {});
    assert.equal(held.error?.code, ErrorCode.LimitReached, JSON.stringify(held));
    assert.equal(data(held)?.limit, "failing_calls");
    assert.match(held.error!.message, /probe failed its last 2 calls .*"failing_hold_ms"/);
    assert.equal(coreEvents(h, '"limit":"failing_calls"').length, 1);
    // After the hold, calls run again.
    await new Promise((r) => setTimeout(r, 1600));
    assert.deepEqual(await h.result("probe.echo", { back: 1 }), { back: 1 });
  },
  limits({ failing_calls: 2, failing_hold_ms: 1500 }),
);
