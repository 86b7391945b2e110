/**
 * Locks (section 7) with real components: FIFO order, wait:false, release at
 * any end of the owner, no lost update under contention.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, TestHost } from "./helpers/host.ts";

const probe = await builtTestPlugin("probe");

const test = hostTests({ plugins: { probe } });

/** Waits until the lock at `path` has `n` waiters. */
function waiters(h: TestHost, path: string, n: number) {
  return eventually(
    () => h.host.locks.snapshot().locks.find((l) => l.path === path && l.waiters.length === n),
    `${n} waiters`,
  );
}

test("waiters get the lock in FIFO order", async (h) => {
  // The first holder keeps the lock long enough for three waiters to queue, even on a loaded machine.
  const first = h.call("probe.locked", {
    path: "/state/x",
    tag: "first",
    log: "/order",
    hold_ms: 2000,
  });
  await eventually(() => h.host.locks.snapshot().locks.length === 1, "the first holder");
  const rest: Promise<unknown>[] = [];
  for (const [i, tag] of ["a", "b", "c"].entries()) {
    rest.push(h.call("probe.locked", { path: "/state/./x", tag, log: "/order" }));
    await waiters(h, "/state/x", i + 1);
  }
  const snap = h.host.locks.snapshot().locks[0];
  assert.equal(snap.path, "/state/x");
  assert.equal(snap.waiters.length, 3);
  // A process sees the same in /proc/core/locks.json.
  const file = JSON.parse(
    await h.result<string>("probe.read_file", { path: "/proc/core/locks.json" }),
  );
  assert.equal(file.locks.length, 1);
  assert.equal(file.locks[0].path, "/state/x");
  assert.equal(file.locks[0].owner, snap.owner);
  assert.deepEqual(
    file.locks[0].waiters.map((w: { pid: string }) => w.pid),
    snap.waiters.map((w) => w.pid),
  );
  await Promise.all([first, ...rest]);
  assert.equal(await Deno.readTextFile(`${h.root}/order`), "first\na\nb\nc\n");
  assert.deepEqual(h.host.locks.snapshot().locks, []);
});

test("wait:false answers at once with held true or false", async (h) => {
  const holder = h.call("probe.locked", { path: "/l", hold_ms: 300 });
  await eventually(() => h.host.locks.snapshot().locks.length === 1, "the holder");
  const r = await h.result<{ result: { held: boolean } }>("probe.call", {
    method: "core.lock",
    params: { path: "/l", wait: false },
  });
  assert.deepEqual(r.result, { held: false });
  const free = await h.result<{ result: { held: boolean } }>("probe.call", {
    method: "core.lock",
    params: { path: "/other", wait: false },
  });
  assert.deepEqual(free.result, { held: true });
  await holder;
});

test("a crash releases the locks of the process", async (h) => {
  const crash = h.call("probe.locked", { path: "/c", hold_ms: 100, then: "panic" });
  await eventually(() => h.host.locks.snapshot().locks.length === 1, "the holder");
  const waiter = h.call("probe.locked", { path: "/c", tag: "after", log: "/c.log" });
  assert.equal((await crash).error?.code, -32002);
  assert.ok((await waiter).result);
  assert.equal(await Deno.readTextFile(`${h.root}/c.log`), "after\n");
});

test("core.kill releases the locks of the process and its place in queues", async (h) => {
  const spin = h.call("probe.locked", { path: "/k", then: "spin" });
  const held = await eventually(() => h.host.locks.snapshot().locks[0], "the holder");
  const queued = h.call("probe.locked", { path: "/k", tag: "queued", log: "/k.log" });
  const snap = await waiters(h, "/k", 1);
  // A second waiter that is killed while it waits leaves the queue.
  const doomed = h.call("probe.locked", { path: "/k", tag: "doomed", log: "/k.log" });
  const two = await waiters(h, "/k", 2);
  await h.result("core.kill", { pid: two.waiters[1].pid });
  await waiters(h, "/k", 1);
  assert.equal(snap.waiters[0].pid, two.waiters[0].pid);
  await h.result("core.kill", { pid: held.owner });
  assert.equal((await spin).error?.code, -32002, "the killed holder gets no answer");
  assert.ok((await queued).result);
  assert.equal((await doomed).error?.code, -32002);
  assert.equal(await Deno.readTextFile(`${h.root}/k.log`), "queued\n");
});

test("200 concurrent read-modify-write calls under the lock lose no update", async (h) => {
  const calls = Array.from(
    { length: 200 },
    () => h.call("probe.incr", { path: "/state/counter", file: "/counter" }),
  );
  const results = await Promise.all(calls);
  for (const r of results) assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(await Deno.readTextFile(`${h.root}/counter`), "200");
  const values = results.map((r) => r.result as number).sort((a, b) => a - b);
  assert.deepEqual(values, Array.from({ length: 200 }, (_, i) => i + 1));
});

test("unlock of a lock the process does not hold is an error", async (h) => {
  const r = await h.result<{ error: { code: number; message: string } }>("probe.call", {
    method: "core.unlock",
    params: { path: "/nope" },
  });
  assert.equal(r.error.code, -32602);
  assert.match(r.error.message, /does not hold/);
});
