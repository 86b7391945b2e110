import { strict as assert } from "node:assert";
import { EDGE_BYTES, LineSplitter, type SkippedLine, streamLines } from "./line_splitter.ts";

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

Deno.test("an over-long line's head, tail and length reach skipped, and splitting goes on", () => {
  const lines: string[] = [];
  const skipped: SkippedLine[] = [];
  const s = new LineSplitter(100, { line: (l) => lines.push(l), skipped: (k) => skipped.push(k) });
  const long = `{"id":1,"x":"${"a".repeat(5000)}","id2":"end"}`;
  const bytes = new TextEncoder().encode(`short\n${long}\nafter\n`);
  for (let i = 0; i < bytes.length; i += 7) s.push(bytes.subarray(i, i + 7));
  s.end();
  assert.deepEqual(lines, ["short", "after"]);
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0].bytes, long.length);
  // The head is what had arrived when the line passed the limit (at most EDGE_BYTES).
  assert.ok(skipped[0].head.length > 100 && skipped[0].head.length <= EDGE_BYTES);
  assert.equal(skipped[0].head, long.slice(0, skipped[0].head.length));
  assert.equal(skipped[0].tail, long.slice(-EDGE_BYTES));
});
