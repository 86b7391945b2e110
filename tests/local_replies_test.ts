/**
 * Nested calls answered inside the sandbox (`sandbox/local_replies.ts`):
 * real components built from Rust source (`tests/plugins/probe`), real
 * sandboxes. The test host has one sandbox, so a callee always runs beside
 * its caller; the router's `fromProcess` is watched (not replaced) to see
 * which answers the sandbox gave its caller itself.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import { parseExact } from "../rpc/exact_json.ts";
import { parseLine } from "../rpc/message.ts";

const probe = await builtTestPlugin("probe");
const test = hostTests({ plugins: { probe } });

/** A stdout line of a process, whether its sandbox had answered locally, and who called it. */
interface Seen {
  line: string;
  local: boolean;
  parent: string;
}

/** Records each stdout line of a process as the core takes it. */
function watchLines(h: TestHost): Seen[] {
  const seen: Seen[] = [];
  const router = h.host.router;
  const fromProcess = router.fromProcess.bind(router);
  router.fromProcess = (p, line, local = false) => {
    seen.push({ line, local, parent: p.parent });
    fromProcess(p, line, local);
  };
  return seen;
}

/** The lines that were answers of nested calls (a response to its call, by a process's callee). */
function answers(seen: Seen[]): Seen[] {
  return seen.filter(({ line, parent }) => {
    const parsed = parseLine(line);
    return parent !== "console" && parsed.kind === "response" &&
      String(parsed.msg.id).startsWith("probe-");
  });
}

test("a nested call's answer goes to its caller in their sandbox: exact, journaled, once", async (h) => {
  const seen = watchLines(h);
  // Through the control socket's parser: integers beyond 2^53 as they were written.
  const params = '{"m":-9223372036854775808,"n":18446744073709551615,"s":"x"}'; // keys as serde sorts them
  const r = await h.call("probe.call", {
    method: "probe.echo",
    params: parseExact(params) as Record<string, unknown>,
  });
  const inner = (r.result as { result: unknown }).result;
  assert.equal(JSON.stringify(inner), params);
  const [callee] = answers(seen);
  assert.equal(callee.local, true, "the callee's answer was given in the sandbox");
  // The core still took it: the callee is journaled as answered and ended with status 0.
  h.host.journal.flush();
  const pid = (parseExact(callee.line) as { id: string }).id;
  const events = h.host.journal.query({ pid, limit: 100 })
    .filter((e) => e.stream === "core").map((e) => JSON.parse(e.line).event);
  assert.ok(events.includes("start") && events.includes("exit"), events.join(","));
});

test("an error answer, and a fan-out of 10, come back in their sandbox as through the core", async (h) => {
  const seen = watchLines(h);
  const err = await h.result<{ error: { code: number; data: unknown } }>("probe.call", {
    method: "probe.error",
    params: { why: "asked" },
  });
  assert.equal(err.error.code, -32042);
  assert.deepEqual(err.error.data, { why: "asked" });
  const calls = Array.from({ length: 10 }, (_, i) => ({ method: "probe.echo", params: { i } }));
  const out = await h.result<{ result: { i: number } }[]>("probe.fanout", { calls });
  assert.deepEqual(out.map((o) => o.result.i), [...Array(10).keys()]);
  assert.equal(answers(seen).length, 11);
  assert.ok(answers(seen).every((a) => a.local));
});

test("a callee that notifies answers through the core, behind its notifications", async (h) => {
  const seen = watchLines(h);
  const r = await h.result<{ response: { result: unknown }; notes: unknown[] }>("probe.collect", {
    method: "probe.notify",
    params: { count: 3 },
  });
  assert.deepEqual(r.response.result, { sent: 3 });
  assert.equal(r.notes.length, 3, "every notification came before the answer");
  assert.deepEqual(answers(seen).map((a) => a.local), [false]);
});

test("a callee that answers twice: its caller gets the first answer only", async (h) => {
  const seen = watchLines(h);
  // The caller answers with the first response it reads, then ends: a second copy
  // on its stdin would be read by nobody, so the core's journal is what tells.
  const r = await h.result<{ result: unknown }>("probe.call", {
    method: "probe.answer_twice",
    params: {},
  });
  assert.equal(r.result, 1);
  await eventually(() => {
    h.host.journal.flush();
    return h.host.journal.query({ grep: "a second answer was dropped", limit: 10 }).length === 1;
  }, "the core dropping the second answer");
  assert.deepEqual(answers(seen).map((a) => a.local), [true, false]);
});

test("a callee that ends without answering: its caller gets the core's -32002", async (h) => {
  const r = await h.result<{ error: { code: number; message: string } }>("probe.call", {
    method: "probe.exit",
    params: { code: 3 },
  });
  assert.equal(r.error.code, -32002);
  assert.match(r.error.message, /exited with status 3/);
  // The caller's sandbox is still sound: the next nested call answers locally.
  const seen = watchLines(h);
  const next = await h.result<{ result: unknown }>("probe.call", {
    method: "probe.echo",
    params: { a: 1 },
  });
  assert.deepEqual(next.result, { a: 1 });
  assert.deepEqual(answers(seen).map((a) => a.local), [true]);
});

test("a callee that calls another answers through the core; the innermost in the sandbox", async (h) => {
  const seen = watchLines(h);
  const r = await h.result<{ result: { result: unknown } }>("probe.call", {
    method: "probe.call",
    params: { method: "probe.echo", params: { deep: true } },
  });
  assert.deepEqual(r.result.result, { deep: true });
  // Innermost first: its answer stays in the sandbox; the middle one's goes through the core.
  assert.deepEqual(answers(seen).map((a) => a.local), [true, false]);
});
