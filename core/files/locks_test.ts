import { strict as assert } from "node:assert";
import { HostError } from "../../rpc/errors.ts";
import type { Caller } from "../processes/process.ts";
import { lockMethods, LockTable, normaliseLockPath } from "./locks.ts";

const invalidParams = (e: unknown) => e instanceof HostError && e.code === "invalid-params";

Deno.test("lock paths are normalised: absolute, without ., .. or repeated slashes", () => {
  assert.equal(normaliseLockPath("state//x/./y/../z"), "/state/x/z");
  assert.equal(normaliseLockPath("/../a"), "/a");
  assert.throws(() => normaliseLockPath("  "), invalidParams);
});

Deno.test("waiters get the lock in FIFO order, and its owner may take it again", async () => {
  const t = new LockTable();
  assert.deepEqual(await t.lock("p1", "/x"), { held: true });
  assert.deepEqual(await t.lock("p1", "/./x"), { held: true });
  const order: string[] = [];
  const waiting = ["p2", "p3", "p4"].map((pid) => t.lock(pid, "/x").then(() => order.push(pid)));
  assert.deepEqual(t.snapshot().locks[0].waiters.map((w) => w.pid), ["p2", "p3", "p4"]);
  for (const pid of ["p1", "p2", "p3", "p4"]) {
    await new Promise((r) => setTimeout(r, 0));
    t.unlock(pid, "/x");
  }
  await Promise.all(waiting);
  assert.deepEqual(order, ["p2", "p3", "p4"]);
  assert.deepEqual(t.snapshot(), { locks: [] });
});

Deno.test("wait: false answers at once; unlock by another process is -32602", async () => {
  const t = new LockTable();
  await t.lock("p1", "/x");
  assert.deepEqual(await t.lock("p2", "/x", false), { held: false });
  assert.throws(() => t.unlock("p2", "/x"), invalidParams);
  assert.throws(() => t.unlock("p1", "/y"), invalidParams);
});

Deno.test("releaseAll frees a process's locks for the next waiter and leaves its queues", async () => {
  const t = new LockTable();
  await t.lock("p1", "/a");
  await t.lock("p2", "/b");
  const p2waits = t.lock("p2", "/a");
  const p1waits = t.lock("p1", "/b");
  const p3waits = t.lock("p3", "/b");
  t.releaseAll("p1");
  assert.deepEqual(await p2waits, { held: true });
  const b = t.snapshot().locks.find((l) => l.path === "/b")!;
  assert.deepEqual(b.waiters.map((w) => w.pid), ["p3"], "p1 left the queue of /b");
  t.releaseAll("p2");
  assert.deepEqual(await p3waits, { held: true });
  assert.deepEqual(t.snapshot().locks.map((l) => [l.path, l.owner]), [["/b", "p3"]]);
  void p1waits; // never granted: p1 ended
});

Deno.test("core.lock and core.unlock belong to processes and check their params", async () => {
  const methods = lockMethods(new LockTable());
  const caller = (name: string): Caller => ({
    name,
    children: new Set(),
    hasEnded: false,
    deliver: () => {},
  });
  const process: Caller = Object.assign(caller("p1"), { pid: "p1" });
  const console = caller("console");
  assert.deepEqual(await methods.get("lock")!(process, { path: "/x" }, 1), { held: true });
  assert.throws(
    () => methods.get("lock")!(console, { path: "/x" }, 1),
    (e) => e instanceof HostError && e.code === "invalid-request",
  );
  assert.throws(() => methods.get("lock")!(process, { path: 1 }, 1), invalidParams);
  assert.throws(() => methods.get("lock")!(process, { path: "/x", wait: "no" }, 1), invalidParams);
  assert.deepEqual(await methods.get("unlock")!(process, { path: "/x" }, 1), {});
});
