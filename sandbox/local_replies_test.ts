import { strict as assert } from "node:assert";
import { LOCAL_ANSWER_MAX, LocalReplies } from "./local_replies.ts";

const answer = (id: string, result: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result });

Deno.test("a callee's answer goes to its caller under the caller's id, once", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", 7);
  assert.equal(r.answer("b-1", "some text on stdout"), null);
  assert.equal(r.answer("b-1", answer("other", 1)), null, "not its call's id");
  assert.deepEqual(r.answer("b-1", answer("b-1", { n: 1 })), {
    caller: "a-1",
    line: '{"jsonrpc":"2.0","id":7,"result":{"n":1}}',
  });
  assert.equal(r.answer("b-1", answer("b-1", 2)), null, "a second answer stays with the core");
  assert.equal(r.fromCore("b-1"), false, "the core's answer for it is dropped");
  assert.equal(r.size, 0);
});

Deno.test("an error answer keeps its error; integers beyond 2^53 stay exact", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", "x");
  const line = '{"jsonrpc":"2.0","id":"b-1","error":{"code":-32042,"message":"no","data":' +
    '{"n":18446744073709551615}}}';
  assert.equal(
    r.answer("b-1", line)?.line,
    '{"jsonrpc":"2.0","id":"x","error":{"code":-32042,"message":"no","data":' +
      '{"n":18446744073709551615}}}',
  );
});

Deno.test("the core's answer first (cancelled, ended, timed out): the callee's is not given", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", 1);
  assert.equal(r.fromCore("b-1"), true);
  assert.equal(r.answer("b-1", answer("b-1", 1)), null);
});

Deno.test("a callee that sent a request or notification answers through the core, behind it", () => {
  for (
    const sent of [
      '{"jsonrpc":"2.0","method":"core.notify","params":{"name":"p","params":{}}}',
      '{"jsonrpc":"2.0","id":1,"method":"core.pipe","params":{"conn":"c","data":"x"}}',
      '{"jsonrpc":"2.0","id":2,"method":"notes.add","params":{}}',
    ]
  ) {
    const r = new LocalReplies();
    r.expect("b-1", "a-1", 1);
    assert.equal(r.answer("b-1", sent), null);
    assert.equal(r.answer("b-1", answer("b-1", 1)), null);
    assert.equal(r.fromCore("b-1"), true, "the core's copy is the one given");
  }
});

Deno.test("a callee's answers to the core's own requests (core-fs-<n>) change nothing", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", 1);
  assert.equal(r.answer("b-1", answer("core-fs-1", "data")), null);
  assert.ok(r.answer("b-1", answer("b-1", 1)));
});

Deno.test("a caller that ends drops the answers it waited for", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", 1);
  r.expect("b-2", "a-1", 2);
  r.expect("c-1", "a-2", 1);
  r.ended("a-1");
  assert.equal(r.size, 1);
  assert.equal(r.answer("b-2", answer("b-2", 1)), null);
  assert.ok(r.answer("c-1", answer("c-1", 1)));
});

Deno.test("a long answer goes through the core, which parses it anyway", () => {
  const r = new LocalReplies();
  r.expect("b-1", "a-1", 1);
  assert.equal(r.answer("b-1", answer("b-1", "x".repeat(LOCAL_ANSWER_MAX))), null);
  assert.equal(r.fromCore("b-1"), true, "the core's copy is the one given");
});
