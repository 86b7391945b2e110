import { strict as assert } from "node:assert";
import { ProcessRequests } from "./process_requests.ts";
import { FsError } from "../../vfs/mount.ts";

/** Requests whose sent messages are kept, answered by the test as a process would. */
function requests(max = 2, timeoutMs = 10_000) {
  const sent: { id: string; method: string }[] = [];
  return { sent, r: new ProcessRequests((m) => sent.push(m), max, timeoutMs) };
}

const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (e) => (e as FsError).code);

Deno.test("a request is answered by its id; an error answer's errno is the reader's", async () => {
  const { sent, r } = requests();
  const a = r.request("core.fs", { op: "read", path: "a" });
  const b = r.request("core.fs", { op: "read", path: "b" });
  assert.deepEqual(sent.map((m) => m.id), ["core-fs-1", "core-fs-2"]);
  assert.equal(r.settle({ jsonrpc: "2.0", id: "core-fs-2", result: { data: "" } }), true);
  assert.equal(
    r.settle({
      jsonrpc: "2.0",
      id: "core-fs-1",
      error: { code: -32602, message: "no", data: { errno: "read-only" } },
    }),
    true,
  );
  assert.deepEqual(await b, { data: "" });
  assert.equal(await codeOf(a), "read-only");
  // The process's own answer (its pid) is not the core's.
  assert.equal(r.settle({ jsonrpc: "2.0", id: "memfs-1", result: {} }), false);
  // An unknown errno is io.
  const c = r.request("core.fs", {});
  r.settle({
    jsonrpc: "2.0",
    id: "core-fs-3",
    error: { code: 1, message: "x", data: { errno: "?" } },
  });
  assert.equal(await codeOf(c), "io");
});

Deno.test("past the in-flight bound a request is busy; past its time it is io; at the end no-entry", async () => {
  const { r } = requests(1, 50);
  const first = r.request("core.fs", {});
  assert.equal(await codeOf(r.request("core.fs", {})), "busy");
  assert.equal(await codeOf(first), "io");
  // A late answer is taken (not passed on) and dropped.
  assert.equal(r.settle({ jsonrpc: "2.0", id: "core-fs-1", result: {} }), true);
  const open = r.request("core.fs", {});
  r.end();
  assert.equal(await codeOf(open), "no-entry");
  assert.equal(await codeOf(r.request("core.fs", {})), "no-entry");
});
