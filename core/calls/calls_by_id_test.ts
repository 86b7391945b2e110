import { strict as assert } from "node:assert";
import { CallsById } from "./calls_by_id.ts";
import type { Process } from "../processes/process.ts";
import { recordingCaller as caller } from "../_test_utils.ts";

/** A process as `CallsById.running` sees it: its request id and whether it has ended. */
function child(callerId: number, hasEnded = false): Process {
  return { callerId, hasEnded } as unknown as Process;
}

Deno.test("a call is found while it starts, then among the caller's running children", async () => {
  const calls = new CallsById();
  const c = caller();
  const { promise, resolve } = Promise.withResolvers<Process>();
  calls.track(c, 7, promise);
  assert.equal(calls.starting(c, 7), promise);
  assert.equal(calls.starting(c, 8), undefined);
  assert.equal(calls.starting(caller("other"), 7), undefined);
  const p = child(7);
  c.children.add(p);
  resolve(p);
  await promise;
  await Promise.resolve();
  assert.equal(calls.starting(c, 7), undefined, "forgotten once started");
  assert.equal(calls.running(c, 7), p);
  c.children.add(child(8, true));
  assert.equal(calls.running(c, 8), undefined, "an ended call is not running");
});

Deno.test("a call whose start failed is forgotten", async () => {
  const calls = new CallsById();
  const c = caller();
  const failed = Promise.reject(new Error("no plugin"));
  calls.track(c, 1, failed);
  await failed.catch(() => {});
  await Promise.resolve();
  assert.equal(calls.starting(c, 1), undefined);
});
