import { strict as assert } from "node:assert";
import { type Caller, Process, type ProcessRunner } from "./process.ts";

const runner: ProcessRunner = { native: true, input() {}, eof() {}, kill() {} };

Deno.test("a process keeps its newest 1,000 journal lines, in order, through a flood", () => {
  const p = new Process({
    pid: "flood-1",
    plugin: "flood",
    method: "run",
    params: {},
    caller: {} as Caller,
    callerId: undefined,
    detached: true,
    runner,
  });
  for (let i = 0; i < 999; i++) p.remember(`line ${i}`);
  assert.equal(p.lines.length, 999);
  for (let i = 999; i < 25_017; i++) p.remember(`line ${i}`);
  assert.equal(p.lines.length, 1000);
  assert.equal(p.lines[0], "line 24017");
  assert.equal(p.lines.at(-1), "line 25016");
  assert.deepEqual(
    p.lines.map((l) => Number(l.slice(5))),
    Array.from({ length: 1000 }, (_, i) => 24017 + i),
  );
});
