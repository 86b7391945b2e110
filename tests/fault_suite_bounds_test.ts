/**
 * The fault suite, second part (issue 23; the first is `fault_suite_test.ts`):
 * a flood of 10,000 nested calls from one plugin beside a caller whose p99
 * must stay under 100 ms, a chain of nested calls deeper than every
 * per-caller bound, and 1,000 seeded big integers through a nested call and
 * back. Real hosts, real components built from Rust source. Each case prints
 * one `fault-suite:` line with its figures for the README's table;
 * `SAUSAGE_SOAK=10` runs the big integers ten times larger.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { random } from "./helpers/seeded.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import { parseExact } from "../rpc/exact_json.ts";
import { loadFactor, quantile } from "./helpers/latency.ts";

const looper = await builtTestPlugin("looper");
const probe = await builtTestPlugin("probe");
const SCALE = Number(Deno.env.get("SAUSAGE_SOAK") ?? "1") || 1;
const test = hostTests({ plugins: { looper, probe } });

function report(figures: Record<string, unknown>): void {
  console.log(`fault-suite: ${JSON.stringify(figures)}`);
}

/** The value below which `q` of the sorted values lie. */

test("fault suite: a flood of 10,000 nested calls beside a caller: its p99 stays under 100 ms", async (h) => {
  // Not scaled by SAUSAGE_SOAK: a caller's queue holds `processes` (10,000) calls.
  const n = 10_000;
  const flood = h.call("looper.flood", { n, method: "looper.noop", params: {} });
  let done = false;
  flood.finally(() => (done = true));
  await eventually(
    () => h.host.table.all().some((p) => p.plugin === "looper" && p.method === "flood"),
    "the flooder",
    60_000,
  );
  await new Promise((r) => setTimeout(r, 200)); // its calls are on their way
  const ms: number[] = [];
  const began = loadFactor();
  while (!done && ms.length < 1000) {
    const t = performance.now();
    const r = await h.call("probe.noop");
    ms.push(performance.now() - t);
    assert.deepEqual(r.result, {}, JSON.stringify(r.error));
  }
  const ended = loadFactor();
  ms.sort((a, b) => a - b);
  const r = await flood;
  const { ok, failed } = r.result as { ok: number; failed: number };
  const p99 = quantile(ms, 0.99);
  const load = Math.max(began.load, ended.load);
  const bound = 100 * Math.max(began.factor, ended.factor);
  const summary = `${ms.length} calls during the flood: p50 ${quantile(ms, 0.5).toFixed(1)} ms, ` +
    `p99 ${p99.toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms (load ${load})`;
  console.log(summary);
  assert.equal(ok + failed, n, "every nested call was answered");
  assert.equal(failed, 0, JSON.stringify(r.result));
  assert.ok(ms.length >= 100, `the caller got few answers: ${summary}`);
  assert.ok(p99 < bound, `p99 under ${bound.toFixed(0)} ms: ${summary}`);
  report({
    case: "flood beside a caller",
    flood_calls: n,
    caller_calls: ms.length,
    p50_ms: Number(quantile(ms, 0.5).toFixed(1)),
    p99_ms: Number(p99.toFixed(1)),
    load,
    lost: 0,
  });
});

/** `probe.call` nested `depth` deep around `probe.echo` of `params`. */
function chain(depth: number, params: Record<string, unknown>): Record<string, unknown> {
  let call: Record<string, unknown> = { method: "probe.echo", params };
  for (let i = 1; i < depth; i++) call = { method: "probe.call", params: call };
  return call;
}

test(
  "fault suite: a chain of 70 nested calls passes per-caller bounds of 1 (no deadlock)",
  async (h) => {
    // Each process is the caller of the next: its own bounds hold one call, never its chain.
    // 70 deep: more than `calls_in_flight` (64), within serde_json's nesting limit (128).
    const depth = 70;
    let r = await h.result<unknown>("probe.call", chain(depth, { deep: depth }));
    for (let i = 0; i < depth; i++) r = (r as { result: unknown }).result;
    assert.deepEqual(r, { deep: depth });
    report({ case: "nested chain", depth, calls_in_flight: 1, calls_starting: 1, lost: 0 });
  },
  { "config/limits.json": '{"calls_in_flight": 1, "calls_starting": 1}' },
);

/**
 * `n` integers a double cannot hold that a Rust plugin's serde_json keeps (64-bit):
 * the edges, and seeded ones from 2^53 to `u64::MAX` and from `i64::MIN` to -2^53.
 */
function bigIntegers(n: number): string[] {
  const r = random(23);
  const word = () => BigInt(Math.floor(r() * 2 ** 32));
  const out = [
    "18446744073709551615",
    "-9223372036854775808",
    "9223372036854775807",
    "9007199254740993",
    "-9007199254740993",
  ];
  while (out.length < n) {
    const v = (word() << 32n) | word();
    if (r() < 0.3) {
      const neg = -(v & ((1n << 63n) - 1n)) - 1n;
      if (neg < -(2n ** 53n)) out.push(String(neg));
    } else if (v > 2n ** 53n) out.push(String(v));
  }
  return out;
}

async function echoNested(h: TestHost, values: string[]): Promise<string> {
  const text = `{"values":[${values.join(",")}]}`;
  const params = parseExact(text) as Record<string, unknown>;
  const r = await h.result<{ result: unknown }>("probe.call", { method: "probe.echo", params });
  return JSON.stringify(r.result);
}

test("fault suite: 1,000 seeded big integers through a nested call come back exactly", async (h) => {
  const values = bigIntegers(1000 * SCALE);
  let exact = 0;
  for (let i = 0; i < values.length; i += 100) {
    const part = values.slice(i, i + 100);
    assert.equal(await echoNested(h, part), `{"values":[${part.join(",")}]}`);
    exact += part.length;
  }
  report({ case: "big integers", integers: values.length, exact, lost: 0 });
});
