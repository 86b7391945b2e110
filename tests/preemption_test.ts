/**
 * Preemption that no loop escapes (issue 23, item 3): each loop kind that
 * once held a sandbox's thread (host calls that return at once, floods of
 * output, allocation with `eprintln!`, bulk memory operations, a constructor
 * that spins) runs beside an unrelated detached process and a caller in the
 * one sandbox of the test's host; the caller's calls keep being answered
 * quickly, the sandbox is never killed for a stall, and the neighbour lives
 * on. (A flood of 10,000 nested calls beside another caller is a case of the
 * fault suite: `fault_suite_bounds_test.ts`.) Real components built from Rust
 * source (`looper`, `probe`).
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import { loadFactor, quantile } from "./helpers/latency.ts";

const looper = await builtTestPlugin("looper");
const probe = await builtTestPlugin("probe");
const test = hostTests({
  plugins: { looper, spinstart: looper, probe },
  // A loop must outlive the test's 60 measured calls, which take over a minute at loads of 20:
  // past the default time limit (60 s) it would end, and "still loops" fail for the wrong reason.
  files: { "config/limits.json": '{ "call_timeout_ms": 600000 }' },
});

/** The pids of the live processes of `<plugin>.<method>`. */
function live(h: TestHost, plugin: string, method: string): string[] {
  return h.host.table.all().filter((p) => p.plugin === plugin && p.method === method)
    .map((p) => p.pid);
}

/** The latencies of `n` calls of `probe.noop` made one after the other, sorted (ms). */
async function latencies(h: TestHost, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await h.call("probe.noop");
    out.push(performance.now() - t);
    assert.deepEqual(r.result, {}, `call ${i} answered ${JSON.stringify(r.error)}`);
  }
  return out.sort((a, b) => a - b);
}

/** The value below which `q` of the sorted values lie. */

/**
 * Runs `method` of `plugin` beside a detached `probe.serve` and a caller of
 * `probe.noop`: asserts the caller's latencies, that the sandbox is the one
 * it started with, and that the neighbour lives; then kills the looper.
 */
async function besideLoop(
  h: TestHost,
  plugin: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<void> {
  const [sandbox] = h.host.pool.sandboxes;
  const neighbour = (await h.result<{ pid: string }>("core.call", {
    method: "probe.serve",
    params: {},
    detach: true,
  })).pid;
  const looping = h.call(`${plugin}.${method}`, params);
  const pid = await eventually(
    () => live(h, plugin, method)[0],
    `${plugin}.${method} running`,
    60_000,
  );
  await new Promise((r) => setTimeout(r, 200)); // well into its loop
  const began = loadFactor();
  const ms = await latencies(h, 60);
  const after = loadFactor();
  const { load, factor } = began.factor > after.factor ? began : after;
  const summary =
    `p50 ${quantile(ms, 0.5).toFixed(1)} ms, p90 ${quantile(ms, 0.9).toFixed(1)} ms, ` +
    `max ${ms[ms.length - 1].toFixed(1)} ms (load ${load})`;
  console.log(`${plugin}.${method}: ${summary}`);
  // Loose bounds, scaled by the load per core (a spinner alone gives p50 ~2 ms on an idle
  // machine); a loop that escapes preemption holds the sandbox until the core kills it
  // (`stall_ms`: 10 s), which the bound on the slowest call stays under, and the sandbox and
  // the neighbour are checked below.
  assert.ok(quantile(ms, 0.5) < 250 * factor, `beside ${plugin}.${method}: ${summary}`);
  assert.ok(
    ms[ms.length - 1] < Math.min(3000 * factor, 8000),
    `beside ${plugin}.${method}: ${summary}`,
  );
  assert.deepEqual(live(h, plugin, method), [pid], `${plugin}.${method} still loops`);
  await h.result("core.kill", { pid });
  const ended = await looping;
  assert.equal(ended.error?.code, -32002);
  assert.match(ended.error!.message, /was killed/);
  assert.deepEqual(live(h, "probe", "serve"), [neighbour], "the neighbour lives on");
  assert.equal(h.host.pool.sandboxes[0], sandbox, "the sandbox was never replaced");
  const lost = await h.result<unknown[]>("core.log", { grep: "sandbox was lost", limit: 10 });
  assert.deepEqual(lost, [], "no process lost its sandbox");
  await h.result("core.stop", { pid: neighbour });
}

for (
  const [method, params] of [
    ["stat", {}],
    ["read", {}],
    ["random", {}],
    ["stdout", {}],
    ["stderr", { len: 1000 }],
    ["alloc_eprintln", {}],
    ["bulk", { mib: 16 }],
  ] as const
) {
  test(`a ${method} loop is preempted: its neighbours and a caller go on`, async (h) => {
    await besideLoop(h, "looper", method, params);
  });
}

test("a constructor that spins before main is preempted (or ended alone)", async (h) => {
  await besideLoop(h, "spinstart", "noop");
});
