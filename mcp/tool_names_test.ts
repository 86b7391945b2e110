import { strict as assert } from "node:assert";
import { MAX_TOOL_NAME, toolNames } from "./tool_names.ts";

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

Deno.test("a method's tool name joins plugin and method with _ and replaces other characters", async () => {
  const names = await toolNames(["notes.add", "my-plugin.rpc.x", "a.b c"]);
  assert.deepEqual([...names.values()], ["notes_add", "my-plugin_rpc_x", "a_b_c"]);
});

Deno.test("colliding names each get a hash of their method, whatever the order", async () => {
  const one = await toolNames(["a_b.c", "a.b_c", "notes.add"]);
  const two = await toolNames(["notes.add", "a.b_c", "a_b.c"]);
  assert.equal(one.get("notes.add"), "notes_add");
  assert.notEqual(one.get("a_b.c"), one.get("a.b_c"));
  assert.match(one.get("a_b.c")!, /^a_b_c_[0-9a-f]{8}$/);
  assert.equal(one.get("a_b.c"), two.get("a_b.c"));
  assert.equal(one.get("a.b_c"), two.get("a.b_c"));
});

Deno.test("long names are cut to 64 characters and stay distinct", async () => {
  const long = "p".repeat(40) + "." + "m".repeat(40);
  const names = await toolNames([long, long + "2"]);
  for (const n of names.values()) {
    assert.match(n, VALID);
    assert.equal(n.length, MAX_TOOL_NAME);
  }
  assert.notEqual(names.get(long), names.get(long + "2"));
});
