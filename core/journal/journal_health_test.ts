import assert from "node:assert/strict";
import { JournalHealth, MAX_PENDING } from "./journal_health.ts";

Deno.test("journal health: one line a streak, pauses that grow to 5 s, bounded pending, a summary at the end", () => {
  const lines: string[] = [];
  const h = new JournalHealth((l) => lines.push(l));
  assert.ok(h.due(0));
  const pauses: number[] = [];
  let now = 1000;
  for (let i = 0; i < 10; i++) {
    h.failed(new Error("database or disk is full"), now);
    assert.equal(h.due(now), false);
    pauses.push(h.wait(now));
    now += h.wait(now);
    assert.ok(h.due(now));
  }
  assert.deepEqual(pauses, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
  assert.equal(lines.length, 1, "said once");
  const kept = h.bound(Array.from({ length: MAX_PENDING + 5 }, (_, i) => i));
  assert.equal(kept.length, MAX_PENDING);
  assert.equal(kept[0], 5, "the oldest go");
  assert.equal(h.view().write_failures, 10);
  assert.equal(h.view().dropped_entries, 5);
  const streak = h.succeeded(now);
  assert.deepEqual(streak, { failures: 10, dropped: 5, ms: now - 1000 });
  assert.equal(lines.length, 2);
  assert.equal(h.view().failing_since, null);
  assert.equal(h.succeeded(now), null, "no streak to end");
});
