/**
 * The runtime (section 4) end to end: real components built from Rust source
 * (`tests/plugins/probe`), real sandboxes, real SQLite.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, TestHost } from "./helpers/host.ts";
import type { Entry } from "../core/journal/journal.ts";

const probe = await builtTestPlugin("probe");
const PID = /^probe-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const test = hostTests({ plugins: { probe } });

function entries(h: TestHost, filter: Record<string, unknown>): Promise<Entry[]> {
  return h.result<Entry[]>("core.log", { limit: 1000, ...filter });
}

test("a call starts <plugin>-<uuidv7>, whose request id is its pid, with its environment", async (h) => {
  const r = await h.call("probe.env");
  const env = r.result as Record<string, string>;
  assert.match(env.pid, PID);
  assert.equal(env.request_id, env.pid);
  assert.equal(env.plugin, "probe");
  assert.equal(env.parent, "console");
  assert.match(String(r.id), /^console-/, "the answer comes back under the caller's id");
});

test("a nested call sees its parent's pid as SAUSAGE_PARENT", async (h) => {
  const r = await h.result<{ result: Record<string, string> }>("probe.call", {
    method: "probe.env",
    params: {},
  });
  assert.match(r.result.parent, PID);
  assert.notEqual(r.result.parent, r.result.pid);
});

test("an unknown plugin is -32001; bad names and core methods are checked", async (h) => {
  assert.equal((await h.call("nothere.x")).error?.code, -32001);
  assert.equal((await h.call("Bad.x")).error?.code, -32001);
  assert.equal((await h.call("core.nothing")).error?.code, -32601);
  assert.equal((await h.call("nodot")).error?.code, -32601);
  const nested = await h.result<{ error: { code: number } }>("probe.call", {
    method: "nothere.y",
    params: {},
  });
  assert.equal(nested.error.code, -32001);
});

test("params must be an object and batches are rejected, with clear errors", async (h) => {
  const arr = await h.result<{ error: { code: number; message: string } }>("probe.raw", {
    line: '{"jsonrpc":"2.0","id":"x","method":"probe.echo","params":[1]}',
  });
  assert.equal(arr.error.code, -32602);
  assert.match(arr.error.message, /object/);
  const batch = await h.result<{ error: { code: number; message: string } }>("probe.raw", {
    line: '[{"jsonrpc":"2.0","id":"a","method":"probe.noop"}]',
  });
  assert.equal(batch.error.code, -32600);
  assert.match(batch.error.message, /batch/);
});

test("stdout lines that are not JSON-RPC and every stderr line go to the journal", async (h) => {
  assert.deepEqual(await h.result("probe.chatter"), { ok: true });
  const pid = (await entries(h, { grep: "this is not json" }))[0].pid;
  const lines = (await entries(h, { pid })).map((e) => `${e.stream}:${e.line}`);
  assert.ok(lines.includes("stdout:this is not json"));
  assert.ok(lines.includes('stdout:{"json": "but not json-rpc"}'));
  assert.ok(lines.includes("stderr:a line on stderr"));
  assert.ok(lines.includes("stderr:another line on stderr"));
});

test("a plain-std plugin (no SDK) moves megabytes: params, answers, files, stderr", async (h) => {
  // Each of these trapped in the preview-1 adapter before cabi_realloc.c was linked in.
  const big = "z".repeat(1_000_000);
  assert.deepEqual(await h.result("probe.echo", { big }), { big });
  const text = "q".repeat(256 * 1024);
  await h.result("probe.write_file", { path: "/state/probe/big.txt", text });
  assert.equal(await h.result("probe.read_file", { path: "/state/probe/big.txt" }), text);
  assert.deepEqual(await h.result("probe.hog", { mb: 2, log: true }), { held_mb: 2 });
  assert.ok((await entries(h, { grep: "holding 2 MiB" })).length === 1);
}, { "state/probe/.keep": "" });

test("a process can have many calls in flight and gets answers in any order", async (h) => {
  const calls = [40, 5, 20].map((ms) => ({ method: "probe.sleep", params: { ms } }));
  const out = await h.result<{ result: { slept: number } }[]>("probe.fanout", { calls });
  assert.deepEqual(out.map((r) => r.result.slept), [40, 5, 20]);
});

test("a process that ends without an answer gives -32002 with its status and last lines", async (h) => {
  const exit = await h.call("probe.exit", { code: 3 });
  assert.equal(exit.error?.code, -32002);
  const data = exit.error!.data as { status: number; lines: string[] };
  assert.equal(data.status, 3, "the code the guest gave to exit, through the component path");
  assert.match(exit.error!.message, /exited with status 3/);
  assert.ok(data.lines.some((l) => l.includes("exiting with 3")), JSON.stringify(data));
  const pid = (await entries(h, { grep: "exiting with 3" }))[0].pid;
  const ends = (await entries(h, { pid, grep: '"event":"exit"' })).map((e) => JSON.parse(e.line));
  assert.deepEqual(ends, [{ event: "exit", status: 3 }]);
  const big = await h.call("probe.exit", { code: 200 });
  assert.equal((big.error!.data as { status: number }).status, 200);
  const panic = await h.call("probe.panic");
  assert.equal(panic.error?.code, -32002);
  const pd = panic.error!.data as { trap: string; lines: string[] };
  assert.match(pd.trap, /trap|unreachable/);
  assert.ok(pd.lines.some((l) => l.includes("probe was asked to panic")));
});

test("a JSON-RPC error of a process reaches the caller as it is", async (h) => {
  const r = await h.call("probe.error", { why: "test" });
  assert.deepEqual(r.error, { code: -32042, message: "asked to fail", data: { why: "test" } });
});

test("core.notify reaches the caller with the caller's id, and is dropped after the call", async (h) => {
  const r = await h.call("probe.notify", { count: 3 });
  assert.deepEqual(r.result, { sent: 3 });
  assert.equal(h.notes.length, 3);
  for (const [i, n] of h.notes.entries()) {
    assert.deepEqual((n as { params: unknown }).params, {
      call: r.id,
      name: "progress",
      params: { i },
    });
  }
  const nested = await h.result<{ notes: { params: { call: string } }[] }>("probe.collect", {
    method: "probe.notify",
    params: { count: 2 },
  });
  assert.equal(nested.notes.length, 2);
  h.notes.length = 0;
  await h.result("probe.answer_then_notify");
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(h.notes.length, 0, "a notification after the answer is dropped");
});

test("core.call detached returns the result and the process outlives its caller", async (h) => {
  const r = await h.result<{ result: { pid: string } }>("probe.call", {
    method: "core.call",
    params: { method: "probe.serve", params: {}, detach: true },
  });
  const child = h.host.table.get(r.result.pid);
  assert.ok(child, "the detached process still runs after its caller ended");
  assert.equal(child.detached, true);
  assert.equal(child.parent, "core");
  await h.result("core.stop", { pid: child.pid });
});

test("attached children stop (EOF) when their parent ends", async (h) => {
  const r = await h.result<{ result: { pid: string } }>("probe.call", {
    method: "probe.serve",
    params: {},
  });
  const pid = r.result.pid;
  await eventually(() => !h.host.table.get(pid), "the child to end");
  const lines = (await entries(h, { pid })).map((e) => e.line);
  assert.ok(lines.includes("stdin closed"), "the child saw EOF on stdin");
  assert.ok(lines.some((l) => l.includes('"event":"stop"')));
});

test("core.call as a notification starts a detached process and forgets it", async (h) => {
  await h.result("probe.raw", {
    line: '{"jsonrpc":"2.0","method":"core.call","params":{"method":"probe.serve","params":{}}}',
    expect_reply: false,
  });
  const p = await eventually(
    () => h.host.table.all().find((p) => p.method === "serve"),
    "the serve process",
  );
  assert.equal(p.detached, true);
});

test("core.stop closes stdin and answers {} once the process has ended", async (h) => {
  const { pid } = await h.result<{ pid: string }>("core.call", {
    method: "probe.serve",
    params: {},
    detach: true,
  });
  assert.deepEqual(await h.result("core.stop", { pid }), {});
  assert.equal(h.host.table.get(pid), undefined);
  const events = (await entries(h, { pid })).map((e) => e.line);
  assert.ok(events.includes("stdin closed"));
  assert.ok(
    events.some((l) => l.includes('"event":"exit"') && l.includes('"status":0')),
    events.join("\n"),
  );
});

test("core.stop kills a process that ignores EOF after the 5 s grace period", async (h) => {
  const pending = h.call("probe.ignore_eof");
  const p = await eventually(
    () => h.host.table.all().find((p) => p.method === "ignore_eof"),
    "the process",
  );
  const t0 = performance.now();
  assert.deepEqual(await h.result("core.stop", { pid: p.pid }), {});
  const ms = performance.now() - t0;
  assert.ok(ms >= 4900 && ms < 7000, `stop took ${ms} ms`);
  const r = await pending;
  assert.equal(r.error?.code, -32002);
  assert.equal((r.error!.data as { status: string }).status, "killed");
  const lines = (await entries(h, { pid: p.pid })).map((e) => e.line);
  assert.ok(lines.includes("stdin closed, ignoring it"));
  assert.ok(lines.some((l) => l.includes('"event":"kill"')));
});

test("core.kill ends a process stuck in a loop within 50 ms, and others keep running", async (h) => {
  const spin = h.call("probe.spin");
  const p = await eventually(
    () => h.host.table.all().find((p) => p.method === "spin"),
    "the spinning process",
  );
  await eventually(
    async () => (await entries(h, { pid: p.pid, grep: "spinning" })).length > 0,
    "the loop to start",
  );
  assert.deepEqual(await h.result("probe.echo", { still: "alive" }), { still: "alive" });
  const t0 = performance.now();
  assert.deepEqual(await h.result("core.kill", { pid: p.pid }), {});
  const r = await spin;
  const ms = performance.now() - t0;
  assert.equal(r.error?.code, -32002);
  assert.equal((r.error!.data as { status: string }).status, "killed");
  assert.ok(ms < 50, `kill took ${ms} ms`);
  assert.deepEqual(await h.result("probe.echo", { after: 1 }), { after: 1 });
});

test("core.log filters by plugin, pid, since, until, grep and limit", async (h) => {
  await h.result("probe.chatter");
  await new Promise((r) => setTimeout(r, 5));
  const mid = Date.now();
  await new Promise((r) => setTimeout(r, 5));
  await h.result("probe.chatter");
  const all = await entries(h, { plugin: "probe", grep: "a line on stderr" });
  assert.equal(all.length, 2);
  for (const e of all) {
    assert.match(e.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    assert.equal(e.stream, "stderr");
    assert.match(e.pid, PID);
  }
  assert.equal((await entries(h, { grep: "a line on stderr", since: mid })).length, 1);
  assert.equal(
    (await entries(h, { grep: "a line on stderr", until: new Date(mid).toISOString() })).length,
    1,
  );
  assert.equal((await entries(h, { pid: all[0].pid, grep: "stderr" })).length, 2);
  const last = await entries(h, { plugin: "probe", limit: 1 });
  assert.equal(last.length, 1);
  const start = (await entries(h, { pid: all[1].pid })).find((e) =>
    e.line.includes('"event":"start"')
  )!;
  const { engine, ...event } = JSON.parse(start.line);
  assert.deepEqual(event, {
    event: "start",
    method: "chatter",
    params: {},
    parent: "console",
    detached: false,
  });
  assert.ok(engine === "p1" || engine === "jco", `the engine that ran it: ${engine}`);
  assert.equal((await h.call("core.log", { since: "not a time" })).error?.code, -32602);
});

test("boot makes each call of config/boot.json detached at start", async (h) => {
  const p = await eventually(
    () => h.host.table.all().find((p) => p.method === "serve"),
    "the boot process",
  );
  assert.equal(p.detached, true);
  assert.equal(p.parent, "core");
  assert.deepEqual(p.params, { from: "boot" });
}, { "config/boot.json": '[{"method": "probe.serve", "params": {"from": "boot"}}]' });

test("host shutdown stops every process", async (h) => {
  const { pid } = await h.result<{ pid: string }>("core.call", {
    method: "probe.serve",
    params: {},
    detach: true,
  });
  await h.host.shutdown(1000);
  assert.equal(h.host.table.size, 0);
  const db = new (await import("node:sqlite")).DatabaseSync(`${h.root}/state/core/journal.sqlite`);
  const lines = db.prepare("SELECT line FROM journal WHERE pid = ?").all(pid).map((r) =>
    String(r.line)
  );
  db.close();
  assert.ok(lines.includes("stdin closed"));
});

test("core.exit ends the host with exit code 75", async (h) => {
  assert.deepEqual(await h.result("core.exit"), {});
  assert.equal(await h.host.done, 75);
});

Deno.test({
  name: "an empty SAUSAGE_SANDBOX_V8_FLAGS is no flags: sandboxes start and answer",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    Deno.env.set("SAUSAGE_SANDBOX_V8_FLAGS", " ");
    try {
      const h = await TestHost.start({ plugins: { probe } });
      try {
        assert.deepEqual((await h.call("probe.noop")).result, {});
      } finally {
        await h.close();
      }
    } finally {
      Deno.env.delete("SAUSAGE_SANDBOX_V8_FLAGS");
    }
  },
});
