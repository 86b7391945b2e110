import { strict as assert } from "node:assert";
import { LineSplitter, streamLines } from "./line_splitter.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

function split(chunks: string[], max = 100): { lines: string[]; tooLong: number[] } {
  const lines: string[] = [];
  const tooLong: number[] = [];
  const s = new LineSplitter(max, { line: (l) => lines.push(l), tooLong: (n) => tooLong.push(n) });
  for (const c of chunks) s.push(bytes(c));
  s.end();
  return { lines, tooLong };
}

Deno.test("lines split across chunks, with \\r\\n, empty lines, a last line without newline", () => {
  assert.deepEqual(split(["ab", "c\nd", "e\r\n\n", "é", "\nlast"]).lines, [
    "abc",
    "de",
    "",
    "é",
    "last",
  ]);
  // A multi-byte character cut between chunks is decoded whole.
  const e = bytes("é\n");
  const lines: string[] = [];
  const s = new LineSplitter(10, { line: (l) => lines.push(l) });
  s.push(e.subarray(0, 1));
  s.push(e.subarray(1));
  assert.deepEqual(lines, ["é"]);
});

Deno.test("a line over the limit is dropped and reported once; the next lines come through", () => {
  const r = split([
    "x".repeat(60),
    "x".repeat(60),
    "x".repeat(60) + "\nok\n",
    "y".repeat(100) + "\n",
  ]);
  assert.deepEqual(r.lines, ["ok", "y".repeat(100)]);
  assert.deepEqual(r.tooLong, [120]);
});

Deno.test("a kept partial line is copied: the writer may reuse its buffer", () => {
  const lines: string[] = [];
  const s = new LineSplitter(100, { line: (l) => lines.push(l) });
  const buf = bytes("abc");
  s.push(buf);
  buf.set(bytes("zzz"));
  s.push(bytes("\n"));
  assert.deepEqual(lines, ["abc"]);
});

Deno.test("64 MiB without a newline in 4 KiB writes is dropped as it comes, then lines resume", async () => {
  const chunk = new Uint8Array(4096).fill(120);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent < 64 * 2 ** 20) (c.enqueue(chunk), sent += chunk.length);
      else (c.enqueue(bytes("\nafter\n")), c.close());
    },
  });
  const reports: number[] = [];
  const out: string[] = [];
  for await (const l of streamLines(stream, 2 ** 20, (n) => reports.push(n))) out.push(l);
  assert.deepEqual(out, ["after"]);
  assert.deepEqual(reports, [2 ** 20 + 4096]);
});
