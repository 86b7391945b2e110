import { strict as assert } from "node:assert";
import { ErrorCode, HostError } from "../../rpc/errors.ts";
import type { Message } from "../../rpc/message.ts";
import type { Process } from "../processes/process.ts";
import { Router, type RouterSupervisor, splitMethod } from "./router.ts";
import type { SpawnRequest } from "../processes/spawn_request.ts";
import { defaultLimits } from "../world/limits.ts";
import { recordingCaller as caller } from "../_test_utils.ts";

/** A supervisor that records spawns and journal lines, and fails spawns of `missing`. */
function fakeSupervisor() {
  const spawned: SpawnRequest[] = [];
  const logged: [string, string][] = [];
  const sup: RouterSupervisor = {
    limits: defaultLimits(),
    spawn(req: SpawnRequest): Promise<Process> {
      spawned.push(req);
      if (req.plugin === "missing") {
        return Promise.reject(new HostError("no-such-plugin", "no plugin missing"));
      }
      return new Promise(() => {});
    },
    log: {
      write(_p: Process, stream: string, line: string) {
        logged.push([stream, line]);
      },
    },
  };
  return { sup, spawned, logged };
}

const turn = () => new Promise((r) => setTimeout(r, 0));

Deno.test("method names split at the first dot; anything else is -32601", () => {
  assert.deepEqual(splitMethod("notes.rpc.discover"), { target: "notes", name: "rpc.discover" });
  for (const bad of ["notes", ".add", "notes."]) {
    assert.throws(
      () => splitMethod(bad),
      (e) => e instanceof HostError && e.code === "method-not-found",
    );
  }
});

Deno.test("core methods answer under the caller's id; errors become wire errors", async () => {
  const { sup } = fakeSupervisor();
  const router = new Router(sup);
  router.core.set("ok", () => undefined);
  router.core.set("fail", () => {
    throw new HostError("invalid-params", "bad", { why: 1 });
  });
  router.core.set("crash", () => {
    throw new Error("host fault");
  });
  const c = caller();
  for (const [id, method] of [[1, "core.ok"], ["b", "core.fail"], [3, "core.crash"]] as const) {
    router.request(c, { jsonrpc: "2.0", id, method, params: {} });
  }
  router.request(c, { jsonrpc: "2.0", id: 4, method: "core.nope", params: {} });
  router.request(c, { jsonrpc: "2.0", method: "core.ok", params: {} }); // a notification
  await turn();
  // An unknown method is answered at once, the others a turn later.
  assert.deepEqual(c.got, [
    {
      jsonrpc: "2.0",
      id: 4,
      error: {
        code: -32601,
        message: "the core has no method nope (see /proc/core/PROTOCOL.md)",
      },
    },
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", id: "b", error: { code: -32602, message: "bad", data: { why: 1 } } },
    { jsonrpc: "2.0", id: 3, error: { code: -32603, message: "host fault" } },
  ]);
});

Deno.test("plugin calls go to the supervisor; a failed spawn is the caller's answer", async () => {
  const { sup, spawned } = fakeSupervisor();
  const router = new Router(sup);
  const c = caller();
  router.request(c, { jsonrpc: "2.0", id: 1, method: "notes.add", params: { text: "milk" } });
  router.request(c, { jsonrpc: "2.0", id: 2, method: "missing.x", params: {} });
  router.request(c, { jsonrpc: "2.0", id: 3, method: "nodot", params: {} });
  await turn();
  assert.deepEqual(
    spawned.map((s) => [s.plugin, s.method, s.params, s.callerId, s.detached, s.caller === c]),
    [["notes", "add", { text: "milk" }, 1, false, true], ["missing", "x", {}, 2, false, true]],
  );
  assert.deepEqual(c.got.map((m) => "error" in m && [m.id, m.error?.code]), [
    [3, ErrorCode.MethodNotFound],
    [2, ErrorCode.NoSuchPlugin],
  ]);
});

Deno.test("a caller that has ended gets no answer", async () => {
  const { sup } = fakeSupervisor();
  const router = new Router(sup);
  router.core.set("ok", () => 1);
  const c = caller("console", true);
  router.request(c, { jsonrpc: "2.0", id: 1, method: "core.ok", params: {} });
  await turn();
  assert.deepEqual(c.got, []);
});

Deno.test("a process's stdout: text is journaled, invalid messages answered, answers handed on", () => {
  const { sup, logged } = fakeSupervisor();
  const router = new Router(sup);
  const delivered: Message[] = [];
  const responded: Message[] = [];
  const notified: unknown[] = [];
  let drop: string | null = null;
  const p = {
    ...caller("p1"),
    pid: "p1",
    deliver: (m: Message) => delivered.push(m),
    respond: (m: Message) => (responded.push(m), drop),
    notifyCaller: (name: unknown, params: unknown) => notified.push([name, params]),
  } as unknown as Process;
  router.fromProcess(p, "   ");
  router.fromProcess(p, "hello");
  router.fromProcess(p, '[{"jsonrpc":"2.0","id":1,"method":"a.b"}]');
  router.fromProcess(p, '{"jsonrpc":"2.0","id":"p1","result":{"count":1}}');
  drop = "a second answer was dropped";
  router.fromProcess(p, '{"jsonrpc":"2.0","id":"p1","result":2}');
  router.fromProcess(
    p,
    '{"jsonrpc":"2.0","method":"core.notify","params":{"name":"n","params":5}}',
  );
  assert.deepEqual(logged, [
    ["stdout", "hello"],
    ["core", "invalid message: batches are not supported: send one message per line"],
    ["stdout", '{"jsonrpc":"2.0","id":"p1","result":2}'],
    ["core", "a second answer was dropped"],
  ]);
  assert.deepEqual(delivered.map((m) => "error" in m && m.error?.code), [ErrorCode.InvalidRequest]);
  assert.deepEqual(responded.map((m) => "result" in m && m.result), [{ count: 1 }, 2]);
  assert.deepEqual(notified, [["n", 5]]);
});
