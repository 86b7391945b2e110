import { strict as assert } from "node:assert";
import { invalidUtf8At, notUtf8Error } from "./utf8_check.ts";
import { LineSplitter } from "./line_splitter.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("invalidUtf8At: -1 for valid text, else the offset of the bad sequence's first byte", () => {
  assert.equal(invalidUtf8At(new TextEncoder().encode("aé€😀\uFFFD")), -1);
  assert.equal(invalidUtf8At(bytes(0x61, 0xff, 0x62)), 1);
  assert.equal(invalidUtf8At(bytes(0x61, 0x62, 0xc3, 0x28)), 2); // bad continuation
  assert.equal(invalidUtf8At(bytes(0x61, 0xe2, 0x82)), 1); // cut short
  assert.equal(invalidUtf8At(bytes(0xc0, 0x80)), 0); // overlong
  assert.equal(invalidUtf8At(bytes(0xe0, 0x80, 0x80)), 0); // overlong
  assert.equal(invalidUtf8At(bytes(0x41, 0xed, 0xa0, 0x80)), 1); // a surrogate
  assert.equal(invalidUtf8At(bytes(0xf4, 0x90, 0x80, 0x80)), 0); // past U+10FFFF
  assert.equal(invalidUtf8At(bytes(0xf0, 0x9f, 0x98, 0x80, 0x80)), 4); // a stray continuation
  assert.equal(notUtf8Error(3).code, -32700);
  assert.deepEqual(notUtf8Error(3).data, { offset: 3 });
});

Deno.test("LineSplitter: a line that is not UTF-8 goes to invalidUtf8 with its offset, when asked", () => {
  const lines: string[] = [];
  const bad: [number, string][] = [];
  const s = new LineSplitter(1024, {
    line: (l) => lines.push(l),
    invalidUtf8: (offset, text) => bad.push([offset, text]),
  });
  s.push(new TextEncoder().encode("ok \uFFFD\n"));
  s.push(bytes(0x61, 0x62, 0xff, 0x0a));
  assert.deepEqual(lines, ["ok \uFFFD"]);
  assert.deepEqual(bad, [[2, "ab\uFFFD"]]);
  // Without the handler: U+FFFD in place of the bad byte, as before.
  const plain: string[] = [];
  new LineSplitter(1024, { line: (l) => plain.push(l) }).push(bytes(0x61, 0xff, 0x0a));
  assert.deepEqual(plain, ["a\uFFFD"]);
});
