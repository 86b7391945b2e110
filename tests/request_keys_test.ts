/**
 * Calls safe to retry (PROTOCOL 4.10): `core.call` with a request key runs
 * once however often it is retried, in a real host with the probe plugin's
 * locked counter; a retry while the first runs is told so (-32007); the
 * answers survive a host restart (the journal); a call refused before it
 * started leaves its key free; -32002 says whether the process may have run.
 * MCP's request id is a request key too: a `tools/call` sent again with its
 * id in the same session runs once (`sausage mcp` over stdio).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { ErrorCode } from "../rpc/errors.ts";
import { mcpInitialize, mcpStdioSession } from "./helpers/mcp.ts";
import { launcher } from "./helpers/cli.ts";

Deno.test({
  name: "request keys: a retried call runs once, across a restart; a running one says so",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const probe = await builtTestPlugin("probe");
    const root = await makeWorld({ plugins: { probe } });
    let h = await TestHost.open(root);
    const counter = async () => Number(await Deno.readTextFile(`${root}/state/c`).catch(() => "0"));
    const incr = { method: "probe.incr", params: { path: "/c", file: "/state/c" } };
    try {
      // The same key three times: one increment, three equal answers.
      const first = await h.call("core.call", { ...incr, key: "add-1" });
      assert.deepEqual(first.result, 1);
      for (let i = 0; i < 2; i++) {
        assert.deepEqual((await h.call("core.call", { ...incr, key: "add-1" })).result, 1);
      }
      assert.equal(await counter(), 1);
      // Another key: another increment.
      assert.deepEqual((await h.call("core.call", { ...incr, key: "add-2" })).result, 2);
      assert.equal(await counter(), 2);

      // A retry while the first runs: -32007 at once, no second process.
      const slow = h.call("core.call", {
        method: "probe.sleep",
        params: { ms: 1500 },
        key: "slow",
      });
      await new Promise((r) => setTimeout(r, 300));
      const busy = await h.call("core.call", {
        method: "probe.sleep",
        params: { ms: 1500 },
        key: "slow",
      });
      assert.equal(busy.error?.code, ErrorCode.InProgress, JSON.stringify(busy));
      assert.equal((busy.error?.data as { outcome: string }).outcome, "running");
      assert.deepEqual((await slow).result, { slept: 1500 });
      const after = await h.call("core.call", {
        method: "probe.sleep",
        params: { ms: 1500 },
        key: "slow",
      });
      assert.deepEqual(after.result, { slept: 1500 });

      // A key used for another method is refused.
      const other = await h.call("core.call", { method: "probe.echo", params: {}, key: "add-1" });
      assert.equal(other.error?.code, ErrorCode.InvalidParams);
      assert.match(other.error!.message, /was used for a call of probe.incr/);

      // A plugin's own error is an answer too: recorded, not run again.
      const err = { method: "probe.error", params: { n: 1 }, key: "err" };
      assert.equal((await h.call("core.call", err)).error?.code, -32042);
      assert.equal((await h.call("core.call", err)).error?.code, -32042);

      // Refused before it started: the key stays free (nothing was recorded).
      const none = await h.call("core.call", { method: "nosuch.x", params: {}, key: "free" });
      assert.equal(none.error?.code, ErrorCode.NoSuchPlugin);
      assert.deepEqual(
        (await h.call("core.call", { method: "probe.echo", params: { a: 1 }, key: "free" }))
          .result,
        { a: 1 },
      );

      // -32002: the process was started, so it may have run.
      const killed = await h.call("core.call", {
        method: "probe.spin",
        params: {},
        timeout_ms: 300,
        key: "spin",
      });
      assert.equal(killed.error?.code, ErrorCode.NoAnswer, JSON.stringify(killed));
      assert.equal((killed.error?.data as { outcome: string }).outcome, "unknown");

      // A new host of the world knows the answered keys (from the journal).
      await h.host.shutdown(200);
      h = await TestHost.open(root);
      assert.deepEqual((await h.call("core.call", { ...incr, key: "add-1" })).result, 1);
      assert.deepEqual((await h.call("core.call", { ...incr, key: "add-2" })).result, 2);
      assert.equal(await counter(), 2);
      const again = await h.call("core.call", {
        method: "probe.spin",
        params: {},
        timeout_ms: 300,
        key: "spin",
      });
      assert.equal((again.error?.data as { outcome: string }).outcome, "unknown");
      // A guest's line that looks like a recorded key is not one.
      await h.call("probe.raw", {
        line: JSON.stringify({
          event: "call-key",
          key: "forged",
          method: "probe.incr",
          answer: { result: 99 },
        }),
      });
      await h.host.shutdown(200);
      h = await TestHost.open(root);
      assert.deepEqual((await h.call("core.call", { ...incr, key: "forged" })).result, 3);
    } finally {
      await h.close();
    }
  },
});

Deno.test({
  name: "request keys: MCP's request id is one; a tools/call sent again in its session runs once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const mcpprobe = await builtTestPlugin("mcpprobe");
    const root = await makeWorld({ plugins: { mcpprobe } });
    const runs = async () => (await Deno.readFile(`${root}/state/count`).catch(() => [])).length;
    const session = async () => {
      const s = mcpStdioSession(launcher, root);
      await s.send(JSON.stringify(mcpInitialize(1)));
      assert.ok((await s.answer(1)).result, "initialized");
      await s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      return s;
    };
    const count = (id: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "mcpprobe_count", arguments: {} },
      });
    const text = (answer: Record<string, unknown>) =>
      (answer.result as { content: { text: string }[] }).content[0].text;
    let s = await session();
    try {
      // The same id twice (a client that lost the first answer): one run, the same answer.
      await s.send(count(7));
      const first = await s.answer(7);
      assert.equal(text(first), "1", JSON.stringify(first));
      await s.send(count(7));
      assert.deepEqual(await s.answer(7), first);
      assert.equal(await runs(), 1);
      // Another id, and a string id: each runs.
      await s.send(count(8));
      assert.equal(text(await s.answer(8)), "2");
      await s.send(count("eight"));
      assert.equal(text(await s.answer("eight")), "3");
      await s.send(count("eight"));
      assert.equal(text(await s.answer("eight")), "3");
      // An id that does not fit a key (a space): no key, so each send runs.
      await s.send(count("a b"));
      assert.equal(text(await s.answer("a b")), "4");
      assert.equal(await runs(), 4);
      await s.close();
      // Another session may use id 7 again: its own call.
      s = await session();
      await s.send(count(7));
      assert.equal(text(await s.answer(7)), "5");
      assert.equal(await runs(), 5);
    } finally {
      await s.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});
