/**
 * `CallQueue`: a caller's calls start at most `calls_in_flight` in flight and
 * `calls_starting` starting, in order; a call leaves the starting window when
 * it answers, ends, or has run `STARTING_MS`; callers do not wait for each other.
 */

import { strict as assert } from "node:assert";
import { CallQueue, STARTING_MS, WORLD_STARTING_MS } from "./call_queue.ts";
import type { Caller, Process } from "../processes/process.ts";

/** A call's process as the queue sees it: it ends when told. */
function process(): { p: Process; end: () => void } {
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  return { p: { ended } as unknown as Process, end };
}

const caller = (name: string) => ({ name }) as unknown as Caller;

Deno.test("CallQueue: 4 starting of 64 in flight, in order; released by answer, end or time", async () => {
  const q = new CallQueue(64, 100, 4);
  const a = caller("a"), b = caller("b");
  const started: number[] = [];
  const procs: { p: Process; end: () => void }[] = [];
  for (let i = 0; i < 8; i++) {
    q.enter(a, () => {
      started.push(i);
      const proc = process();
      procs[i] = proc;
      q.started(a, proc.p);
    });
  }
  assert.deepEqual(started, [0, 1, 2, 3], "4 starting, the rest wait");
  let other = false;
  q.enter(b, () => (other = true));
  assert.ok(other, "another caller starts at once");
  q.finished(procs[0].p); // answered
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  procs[1].end(); // ended
  await procs[1].p.ended;
  await Promise.resolve();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  // 2, 3, 4 and 5 run on: past STARTING_MS they no longer count as starting.
  await new Promise((r) => setTimeout(r, STARTING_MS * 3));
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7]);
  for (const proc of procs) proc.end();
});

Deno.test("CallQueue: calls_in_flight holds calls that run long; a failed start gives its room back", async () => {
  const q = new CallQueue(2, 100, 4);
  const a = caller("a");
  const started: number[] = [];
  const procs: { p: Process; end: () => void }[] = [];
  for (let i = 0; i < 4; i++) {
    q.enter(a, () => {
      started.push(i);
      if (i === 2) return q.failed(a);
      procs[i] = process();
      q.started(a, procs[i].p);
    });
  }
  await new Promise((r) => setTimeout(r, STARTING_MS * 2));
  assert.deepEqual(started, [0, 1], "2 in flight, however long they run");
  q.finished(procs[0].p);
  assert.deepEqual(started, [0, 1, 2, 3], "2 failed to start: 3 took its room");
  for (const proc of procs) proc?.end();
  await new Promise((r) => setTimeout(r, STARTING_MS * 2));
});

Deno.test("CallQueue: past world_calls_starting, callers take turns, one call each per round", () => {
  const q = new CallQueue(64, 1000, 4, 4);
  const order: string[] = [];
  const procs: Process[] = [];
  const enter = (c: Caller, tag: string) =>
    q.enter(c, () => {
      order.push(tag);
      const proc = process();
      procs.push(proc.p);
      q.started(c, proc.p);
    });
  // Three flooding callers, 10 calls each, entered in a burst; the world takes 4 at once.
  const floods = ["a", "b", "c"].map(caller);
  for (const c of floods) for (let i = 0; i < 10; i++) enter(c, (c as { name: string }).name);
  assert.deepEqual(order, ["a", "a", "a", "a"], "first come while the world has room");
  assert.equal(q.starting, 4);
  // A polite caller enters after them all.
  enter(caller("p"), "p");
  // Each answer lets one call go, the callers in turn: p waits one round (a, b, c), not 26 calls.
  for (let i = 0; i < 4; i++) q.finished(procs[i]);
  assert.deepEqual(order.slice(4), ["a", "b", "c", "p"]);
  assert.equal(q.starting, 4);
  for (let i = 4; i < 8; i++) q.finished(procs[i]);
  assert.deepEqual(order.slice(8), ["a", "b", "c", "a"]);
  for (const p of procs.slice(8)) q.finished(p);
});

Deno.test("CallQueue: a call leaves the world's count when it answers, is overtaken, or after WORLD_STARTING_MS", async () => {
  const q = new CallQueue(64, 1000, 64, 2);
  const procs: Process[] = [];
  const ends: (() => void)[] = [];
  let n = 0;
  const enter = (c: Caller) =>
    q.enter(c, () => {
      n++;
      const proc = process();
      procs.push(proc.p);
      ends.push(proc.end);
      q.started(c, proc.p);
    });
  const a = caller("a"), b = caller("b");
  for (let i = 0; i < 6; i++) enter(i % 2 ? a : b);
  assert.equal(n, 2, "2 in the world");
  // Past the lanes' 20 ms the world still counts them (a call in a loaded queue is still starting).
  await new Promise((r) => setTimeout(r, STARTING_MS * 2));
  assert.equal(n, 2);
  // 1 answers: 2 goes. 2 answers: call 0 (slow) has been overtaken by two later answers and
  // leaves the world's count too, so 3 and 4 go.
  q.finished(procs[1]);
  assert.equal(n, 3);
  q.finished(procs[2]);
  assert.equal(n, 5, "call 0 was overtaken twice: it left the world's count");
  q.finished(procs[3]);
  assert.equal(n, 6);
  // A call that does not answer leaves after WORLD_STARTING_MS.
  const c = caller("c");
  enter(c);
  assert.equal(n, 6, "the world is full (4 and 5)");
  await new Promise((r) => setTimeout(r, WORLD_STARTING_MS + 20));
  assert.equal(n, 7);
  for (const end of ends) end();
  await new Promise((r) => setTimeout(r, WORLD_STARTING_MS + 20));
});
