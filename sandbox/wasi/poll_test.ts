import { strict as assert } from "node:assert";
import { clockInterfaces } from "./clocks.ts";
import { MAX_POLLABLES, poll, Pollable } from "./poll.ts";

const clock = clockInterfaces()["wasi:clocks/monotonic-clock"] as {
  subscribeDuration(ns: bigint): Pollable;
};

Deno.test("poll of many clocks waits for the earliest on one timer of its own, not one per clock", async () => {
  // Clocks whose own waits count their calls: poll uses their deadlines instead.
  let ownWaits = 0;
  const at = (ms: number) => {
    const deadline = performance.now() + ms;
    return new Pollable(
      () => performance.now() >= deadline,
      () => (ownWaits++, new Promise((r) => setTimeout(r, ms))),
      deadline,
    );
  };
  const list = Array.from({ length: MAX_POLLABLES - 1 }, () => at(60_000));
  list.push(at(20));
  const t = performance.now();
  assert.deepEqual([...await poll(list)], [MAX_POLLABLES - 1]);
  assert.ok(performance.now() - t >= 19);
  assert.equal(ownWaits, 0);
});

Deno.test("a monotonic clock's pollable carries its deadline for poll", async () => {
  const list = [clock.subscribeDuration(60_000_000_000n), clock.subscribeDuration(20_000_000n)];
  assert.ok(list[0].deadline! - list[1].deadline! > 59_000);
  const t = performance.now();
  assert.deepEqual([...await poll(list)], [1]);
  assert.ok(performance.now() - t >= 19);
});

Deno.test("poll of more than MAX_POLLABLES traps", async () => {
  const list = Array.from({ length: MAX_POLLABLES + 1 }, () => clock.subscribeDuration(0n));
  await assert.rejects(poll(list), /at most 4096 a call/);
});
