import { strict as assert } from "node:assert";
import { memberTexts, messageText, passResultText, requestText } from "./forwarded_text.ts";
import { parseLine, type Response } from "./message.ts";
import { parseExact } from "./exact_json.ts";

/** The answer on `line` as its caller (id 7) gets it as text. */
function forwarded(line: string): string {
  const parsed = parseLine(line);
  assert.equal(parsed.kind, "response");
  const msg = (parsed as { msg: Response }).msg;
  const answer: Response = { jsonrpc: "2.0", id: 7, result: msg.result };
  passResultText(msg, answer);
  return messageText(answer);
}

Deno.test("memberTexts gives each member's value as its text; null for a repeated key or no object", () => {
  assert.deepEqual(
    [
      ...memberTexts(
        ' { "a" : [1, "]}\\"", {"b": {}}] , "\\u0063": "x\\\\", "n": -1.50e3 , "t": true } ',
      )!,
    ],
    [["a", '[1, "]}\\"", {"b": {}}]'], ["c", '"x\\\\"'], ["n", "-1.50e3"], ["t", "true"]],
  );
  assert.deepEqual([...memberTexts("{}")!], []);
  assert.equal(memberTexts('{"a":1,"a":2}'), null);
  assert.equal(memberTexts("[1]"), null);
});

Deno.test("a forwarded result is the text the process wrote, under the caller's id; numbers exact", () => {
  const result = '{"decimal":0.1000000000000000055511151231257827,"huge":1e400,"z":-0.0,"one":1.0}';
  const text = forwarded(`{"jsonrpc":"2.0","id":"p-1","result":${result}}`);
  assert.equal(text, `{"jsonrpc":"2.0","id":7,"result":${result}}`);
  assert.deepEqual(parseExact(text), {
    jsonrpc: "2.0",
    id: 7,
    result: parseExact(result),
  });
  // Any member order and spacing.
  assert.equal(
    forwarded(' {"result" : [1, 2] , "id":"p-1", "jsonrpc":"2.0"}'),
    '{"jsonrpc":"2.0","id":7,"result":[1, 2]}',
  );
});

Deno.test("an answer with a repeated or an extra member is serialised again, as before", () => {
  for (
    const line of [
      '{"jsonrpc":"2.0","id":"p-1","result":1,"id":"x"}',
      '{"jsonrpc":"2.0","id":"p-1","result":1,"result":2}',
      '{"jsonrpc":"2.0","id":"p-1","result":1,"extra":2}',
    ]
  ) {
    const msg = (parseLine(line) as { msg: Response }).msg;
    const answer: Response = { jsonrpc: "2.0", id: 7, result: msg.result };
    passResultText(msg, answer);
    assert.equal(messageText(answer), JSON.stringify(answer), line);
  }
  // Nothing kept: JSON.stringify's.
  assert.equal(
    messageText({ jsonrpc: "2.0", id: 1, result: {} }),
    '{"jsonrpc":"2.0","id":1,"result":{}}',
  );
  assert.equal(messageText("text"), '"text"');
});

Deno.test("a call's params go to the callee as the text the caller wrote; params made in the host are serialised", () => {
  const params = '{"n": 18446744073709551615, "d": 1.0, "s": "é\\u00e9"}';
  const parsed = parseLine(`{"jsonrpc":"2.0","id":1,"method":"p.m","params":${params}}`);
  assert.equal(parsed.kind, "request");
  const req = (parsed as { msg: { params: object } }).msg;
  const text = requestText("p-1", "p.m", req.params);
  assert.equal(text, `{"jsonrpc":"2.0","id":"p-1","method":"p.m","params":${params}}`);
  assert.equal(
    requestText("p-1", "p.m", { a: 1 }),
    JSON.stringify({ jsonrpc: "2.0", id: "p-1", method: "p.m", params: { a: 1 } }),
  );
  // A repeated member: serialised from what the parse made.
  const twice = parseLine(
    '{"jsonrpc":"2.0","id":1,"method":"p.m","params":{"a":1},"params":{"a":2}}',
  );
  const p2 = (twice as { msg: { params: object } }).msg.params;
  assert.equal(
    requestText("p-1", "p.m", p2),
    '{"jsonrpc":"2.0","id":"p-1","method":"p.m","params":{"a":2}}',
  );
});
