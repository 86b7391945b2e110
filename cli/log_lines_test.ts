import { strict as assert } from "node:assert";
import type { Entry, Stream } from "../core/journal/journal.ts";
import { PeopleLines } from "./log_lines.ts";

const PID = "hello-01a23539-fa89-7000-ad73-348e28dc9af6";
const T0 = Date.parse("2026-12-02T03:06:47.101Z");

function entry(ms: number, stream: Stream, line: string, extra: Partial<Entry> = {}): Entry {
  return { id: String(ms), time: T0 + ms, pid: PID, plugin: "hello", stream, line, ...extra };
}

Deno.test("PeopleLines: a finished call is one line, output is <time> <pid> <line>", () => {
  const lines = new PeopleLines();
  const out = [
    entry(0, "core", '{"event":"start","method":"greet","params":{"name":"Ada"}}'),
    entry(10, "stderr", "greeting Ada"),
    entry(20, "core", '{"event":"stop"}'),
    entry(25, "core", '{"event":"exit","status":0}'),
  ].map((e) => lines.line(e));
  assert.deepEqual(out, [
    null,
    `03:06:47.111 ${PID} greeting Ada`,
    `03:06:47.121 ${PID} stop`,
    `03:06:47.126 hello.greet ${PID} 25 ms exit 0`,
  ]);
  assert.deepEqual(lines.running(), []);
});

Deno.test("PeopleLines: a trap, an exit whose start came before, a call still running, an event", () => {
  const lines = new PeopleLines();
  assert.equal(
    lines.line(entry(0, "core", '{"event":"exit","status":1,"trap":"unreachable\\nmore"}')),
    `03:06:47.101 hello ${PID} trapped: unreachable`,
  );
  assert.equal(lines.line(entry(1, "core", '{"event":"start","method":"spin"}')), null);
  assert.deepEqual(lines.running(), [`03:06:47.102 hello.spin ${PID} running`]);
  assert.equal(
    lines.line(entry(2, "stderr", "slow", { level: "warn", fields: { ms: 250 } })),
    `03:06:47.103 ${PID} WARN slow ms=250`,
  );
});
