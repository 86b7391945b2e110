import { strict as assert } from "node:assert";
import { FailingPlugins } from "./failing_plugins.ts";
import { HostError } from "../../rpc/errors.ts";

function failing(threshold: number, holdMs: number) {
  const events: [string, Record<string, unknown>][] = [];
  return { f: new FailingPlugins(threshold, holdMs, (e, x) => events.push([e, x])), events };
}

Deno.test("a plugin is reported once when its last calls all failed, and recovers on an answer", () => {
  const { f, events } = failing(3, 0);
  f.ended("a", false, "trapped (x)");
  f.ended("a", false, "trapped (x)");
  f.ended("b", true, "exit status 0");
  assert.deepEqual(events, []);
  f.ended("a", false, "killed");
  f.ended("a", false, "killed");
  assert.deepEqual(events, [["failing", { plugin: "a", calls: 3, last: "killed" }]]);
  assert.equal(f.snapshot().a.calls, 4);
  f.check("a", "a.m"); // report only: not held
  f.ended("a", true, "exit status 0");
  assert.deepEqual(f.snapshot(), {});
  assert.deepEqual(events[1], ["recovered", { plugin: "a" }]);
});

Deno.test("an answer in between starts the count again", () => {
  const { f, events } = failing(2, 0);
  f.ended("a", false, "x");
  f.ended("a", true, "exit status 0");
  f.ended("a", false, "x");
  assert.deepEqual(events, []);
});

Deno.test("with a hold, a failing plugin's calls are refused (-32004) until it is over", async () => {
  const { f } = failing(1, 50);
  f.ended("a", false, "trapped (x)");
  assert.throws(() => f.check("a", "a.m"), (e) => {
    assert.ok(e instanceof HostError && e.code === "limit-reached");
    assert.match(e.message, /a\.m was not started: a failed its last 1 calls/);
    return true;
  });
  f.check("b", "b.m");
  await new Promise((r) => setTimeout(r, 60));
  f.check("a", "a.m");
});
