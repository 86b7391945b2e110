import { strict as assert } from "node:assert";
import { removeStaleScratch } from "./worker.ts";

Deno.test("a worker's start removes the scratch folders of dead workers only", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sausage-scratch-test-" });
  try {
    // No process has pid 2^22 + 1 (above Linux's pid_max); this test's own pid runs.
    const dead = `${tmp}/sausage-worker-${2 ** 22 + 1}-abc`;
    const live = `${tmp}/sausage-worker-${Deno.pid}-def`;
    const other = `${tmp}/sausage-other-1-x`;
    for (const d of [dead, live, other]) await Deno.mkdir(d);
    await Deno.writeTextFile(`${dead}/left`, "by a SIGKILLed worker");
    await removeStaleScratch(tmp);
    const left = [];
    for await (const e of Deno.readDir(tmp)) left.push(e.name);
    assert.deepEqual(left.sort(), [other, live].map((d) => d.slice(tmp.length + 1)).sort());
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
