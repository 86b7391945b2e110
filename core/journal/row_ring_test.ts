import { deepStrictEqual as assertEquals } from "node:assert";
import { ringBuffer, RingReader, RingWriter } from "./row_ring.ts";
import type { Row } from "./journal_row.ts";

const row = (i: number, line = `line ${i}`): Row => [
  `id${i}`,
  1_700_000_000_000 + i,
  "pid",
  "probe",
  "stderr",
  line,
  i % 2 ? null : "info",
  i % 3 ? null : '{"n":18446744073709551615}',
  null,
];

Deno.test("rows come out of the ring as they went in, in order, across its wrap", () => {
  const buf = ringBuffer(256);
  const w = new RingWriter(buf);
  const r = new RingReader(buf);
  const out: Row[] = [];
  for (let i = 0; i < 100; i++) {
    w.put(row(i, "é€😀 ".repeat(i % 7)));
    if (i % 3 === 2) out.push(...r.take());
  }
  for (out.push(...r.take()); w.backlog; out.push(...r.take())) w.push();
  assertEquals(out, Array.from({ length: 100 }, (_, i) => row(i, "é€😀 ".repeat(i % 7))));
});

Deno.test("rows that do not fit wait on the writer's side and go in as the reader makes room", () => {
  const buf = ringBuffer(64);
  const w = new RingWriter(buf);
  const r = new RingReader(buf);
  const long = row(1, "x".repeat(1000)); // longer than the ring: goes in pieces
  w.put(row(0));
  w.put(long);
  w.put(row(2));
  assertEquals(w.backlog, true);
  const out: Row[] = [];
  for (let k = 0; k < 100 && (w.backlog || out.length < 3); k++) {
    out.push(...r.take());
    w.push();
  }
  out.push(...r.take());
  assertEquals(w.backlog, false);
  assertEquals(out, [row(0), long, row(2)]);
});

Deno.test("a sleeping reader wakes at the next row, and at once when one came before it slept", async () => {
  const buf = ringBuffer(256);
  const w = new RingWriter(buf);
  const r = new RingReader(buf);
  let woke = 0;
  r.sleep(() => woke++);
  await new Promise((res) => setTimeout(res, 10));
  assertEquals(woke, 0);
  w.put(row(0));
  await new Promise((res) => setTimeout(res, 10));
  assertEquals(woke, 1);
  w.put(row(1)); // before it sleeps again
  r.sleep(() => woke++);
  await Promise.resolve();
  assertEquals(woke, 2);
  assertEquals(r.take(), [row(0), row(1)]);
});

Deno.test("pushAll waits for a reader in a worker to make room", async () => {
  const buf = ringBuffer(64);
  const w = new RingWriter(buf);
  const worker = new Worker(new URL("./testdata/ring_reader_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    // The reader is up before the writer blocks: a worker's start (its modules loaded) took over
    // 10 s once at load 39, and the writer's wait is not what measures it.
    const ready = new Promise((res) => worker.onmessage = res);
    worker.postMessage(buf);
    await ready;
    const rows = Array.from({ length: 50 }, (_, i) => row(i));
    for (const x of rows) w.put(x);
    assertEquals(w.pushAll(10_000), true);
    const got = new Promise<Row[]>((res) => worker.onmessage = (e) => res(e.data));
    worker.postMessage("done");
    assertEquals(await got, rows);
  } finally {
    worker.terminate();
  }
});
