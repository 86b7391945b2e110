/**
 * Cancellation from a process (PROTOCOL 4.6, `core.cancel`): a process
 * cancels a call it made; the callee and its attached processes are stopped
 * as `core.stop` stops them; the call is answered -32005. With the raw
 * protocol (`tests/plugins/probe`) and with the SDK, where dropping a call's
 * future cancels it (`sdk/tests/plugins/sdkprobe`).
 */

import { strict as assert } from "node:assert";
import { builtCrate, builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import type { Response } from "../rpc/message.ts";

const probe = await builtTestPlugin("probe");
const sdkprobe = await builtCrate("sdk/tests/plugins/sdkprobe", "sdkprobe");

const test = hostTests({ plugins: { probe, sdkprobe } });

/** The journal lines of a process, as `<stream>:<line>`. */
function lines(h: TestHost, pid: string): string[] {
  return h.host.journal.query({ pid, limit: 1000 }).map((e) => `${e.stream}:${e.line}`);
}

test("core.cancel stops the callee, answers its call -32005 and itself {cancelled, pid}", async (h) => {
  const request = (id: string, method: string, params: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const replies = await h.result<Response[]>("probe.fuzz", {
    lines: [
      request("a", "probe.wait_eof", {}),
      request("c", "core.cancel", { id: "a" }),
      request("again", "core.cancel", { id: "a" }),
      request("none", "core.cancel", { id: "never-sent" }),
    ],
    replies: 4,
  });
  const byId = new Map(replies.map((r) => [r.id, r]));
  const a = byId.get("a")!;
  assert.equal(a.error?.code, -32005, JSON.stringify(replies));
  const pid = (a.error!.data as { pid: string }).pid;
  assert.match(pid, /^probe-/);
  assert.match(a.error!.message, /cancelled by its caller/);
  assert.deepEqual(byId.get("c")!.result, { cancelled: true, pid });
  assert.deepEqual(byId.get("again")!.result, { cancelled: false });
  assert.deepEqual(byId.get("none")!.result, { cancelled: false });
  assert.ok(!h.host.table.get(pid), "the callee has ended");
  const log = lines(h, pid);
  const at = (s: string) => log.findIndex((l) => l.includes(s));
  assert.ok(at('"event":"cancel"') >= 0, log.join("\n"));
  assert.ok(at('"event":"stop"') > at('"event":"cancel"'), "stopped as core.stop does");
  assert.ok(at("stderr:stdin closed") > at('"event":"stop"'), "its stdin was closed");
  assert.ok(at('"event":"exit"') > 0);
});

test("an SDK call dropped before its answer is cancelled; the callee's tree is stopped", async (h) => {
  // sdkprobe.abandon -> sdkprobe.relay -> probe.wait_eof, dropped after 1.5 s.
  const r = await h.result<{ dropped_us?: number; answered?: unknown }>("sdkprobe.abandon", {
    call: {
      method: "sdkprobe.relay",
      params: { call: { method: "probe.wait_eof", params: {} } },
    },
    ms: 1500,
  });
  assert.ok(r.dropped_us !== undefined, JSON.stringify(r));
  const started = h.host.journal.query({ grep: '"event":"start"', limit: 100 })
    .map((e) => ({ pid: e.pid, method: JSON.parse(e.line).method }));
  const relay = started.find((s) => s.method === "relay")!.pid;
  const waiter = started.find((s) => s.method === "wait_eof")?.pid;
  assert.ok(waiter, `the relay made its call in 1.5 s: ${JSON.stringify(started)}`);
  await eventually(
    () => !h.host.table.get(relay) && !h.host.table.get(waiter),
    "the callee and its child to end",
  );
  assert.ok(
    lines(h, relay).some((l) => l.includes('"event":"cancel"')),
    lines(h, relay).join("\n"),
  );
  assert.ok(lines(h, waiter).includes("stderr:stdin closed"), "the child was stopped too");
  assert.equal(h.host.table.size, 0);
});
