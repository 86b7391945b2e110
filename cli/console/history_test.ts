import { strict as assert } from "node:assert";
import { History } from "./history.ts";

Deno.test("the history file keeps the last inputs, oldest first, without repeats", () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync());
  const path = `${dir}/state/console/history`;
  const h = new History(dir, 3);
  for (const line of ["a", "b", "b", "", "c", "d"]) assert.equal(h.add(line), null);
  assert.deepEqual(h.entries(), ["b", "c", "d"]);
  assert.equal(Deno.readTextFileSync(path), "b\nc\nd\n");
  assert.deepEqual(new History(dir, 3).entries(), ["b", "c", "d"], "read back by the next run");
  assert.deepEqual(new History(dir, 2).entries(), ["c", "d"]);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("the history never writes through a link: a link at its name or its folder is refused or replaced", () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync());
  const outside = Deno.realPathSync(Deno.makeTempDirSync());
  try {
    Deno.writeTextFileSync(`${outside}/bashrc`, "original\n");
    Deno.mkdirSync(`${dir}/state/console`, { recursive: true });
    Deno.symlinkSync(`${outside}/bashrc`, `${dir}/state/console/history`);
    Deno.symlinkSync(`${outside}/bashrc`, `${dir}/state/console/history.tmp`);
    const h = new History(dir);
    assert.deepEqual(h.entries(), [], "a history that leads outside is not read");
    assert.equal(h.add("echo owned"), null);
    assert.equal(Deno.readTextFileSync(`${outside}/bashrc`), "original\n");
    assert.ok(!Deno.lstatSync(`${dir}/state/console/history`).isSymlink, "the link was replaced");
    Deno.removeSync(`${dir}/state/console`, { recursive: true });
    Deno.symlinkSync(outside, `${dir}/state/console`);
    assert.match(new History(dir).add("echo again") ?? "", /leads outside the world/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["bashrc"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
    Deno.removeSync(outside, { recursive: true });
  }
});
