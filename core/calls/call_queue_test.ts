/**
 * `CallQueue`: a caller's calls start at most `calls_in_flight` in flight and
 * `calls_starting` starting, in order; a call leaves the starting window when
 * it answers, ends, or has run `STARTING_MS`; callers do not wait for each other.
 */

import { strict as assert } from "node:assert";
import { CallQueue, STARTING_MS } from "./call_queue.ts";
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
