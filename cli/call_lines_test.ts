import { strict as assert } from "node:assert";
import { callLine } from "./call_lines.ts";

Deno.test("callLine: UTC time, method, pid, duration and how the process ended", () => {
  const t = Date.UTC(2026, 11, 1, 12, 0, 1, 234);
  assert.equal(
    callLine(t, "notes.add", "notes-1", 3.4, { status: 0 }),
    "12:00:01.234 notes.add notes-1 3 ms exit 0",
  );
  assert.equal(
    callLine(t, "notes.add", "notes-1", 9, { status: 1, trap: "unreachable\nmore" }),
    "12:00:01.234 notes.add notes-1 9 ms trapped: unreachable",
  );
  assert.match(callLine(t, "a.b", "a-1", 1, { status: "killed" }), / killed$/);
});
