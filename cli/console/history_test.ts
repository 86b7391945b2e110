import { strict as assert } from "node:assert";
import { History } from "./history.ts";

Deno.test("the history file keeps the last inputs, oldest first, without repeats", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/state/console/history`;
  const h = new History(path, 3);
  for (const line of ["a", "b", "b", "", "c", "d"]) assert.equal(h.add(line), null);
  assert.deepEqual(h.entries(), ["b", "c", "d"]);
  assert.equal(Deno.readTextFileSync(path), "b\nc\nd\n");
  assert.deepEqual(new History(path, 3).entries(), ["b", "c", "d"], "read back by the next run");
  assert.deepEqual(new History(path, 2).entries(), ["c", "d"]);
  Deno.removeSync(dir, { recursive: true });
});
