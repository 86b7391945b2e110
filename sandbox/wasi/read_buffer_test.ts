import { strict as assert } from "node:assert";
import { thrown } from "../_test_utils.ts";
import { BackgroundReader, READ_AHEAD, ReadBuffer } from "./read_buffer.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("an error comes after the bytes that came before it, once; then the end", () => {
  const buf = new ReadBuffer();
  buf.push(bytes(1, 2));
  buf.push(bytes(3));
  const e = new Error("reset");
  buf.fail(e);
  buf.fail(new Error("a second error is not kept"));
  assert.deepEqual(buf.take(10), bytes(1, 2));
  assert.deepEqual(buf.take(10), bytes(3));
  assert.equal(thrown(() => buf.take(10)), e);
  assert.equal(buf.take(10), null);
});

Deno.test("a stream that ended gets no error afterwards", () => {
  const buf = new ReadBuffer();
  buf.end();
  buf.fail(new Error("late"));
  assert.equal(buf.take(1), null);
});

Deno.test("a take smaller than a chunk splits it; empty is not the end", () => {
  const buf = new ReadBuffer();
  assert.deepEqual(buf.take(4), bytes(), "nothing yet, not ended");
  assert.notEqual(buf.whenReadable(), undefined, "a reader waits");
  buf.push(bytes(1, 2, 3, 4, 5));
  assert.equal(buf.whenReadable(), undefined);
  assert.deepEqual(buf.take(2), bytes(1, 2));
  assert.deepEqual(buf.take(2), bytes(3, 4));
  assert.deepEqual(buf.take(2), bytes(5));
});

Deno.test("the buffer wants more until it holds READ_AHEAD bytes; clear drops them and ends", () => {
  const buf = new ReadBuffer();
  buf.push(new Uint8Array(READ_AHEAD - 1));
  assert.ok(buf.wantsMore);
  buf.push(bytes(0));
  assert.ok(!buf.wantsMore);
  buf.clear();
  assert.equal(buf.take(1), null);
  assert.ok(!buf.wantsMore);
});

/** A background reader of a real file, 4 KiB a read, that counts its reads and pauses. */
class FileReader extends BackgroundReader {
  reads = 0;
  pauses = 0;
  private constructor(private file: Deno.FsFile, private failAfter?: number) {
    super();
  }

  static async open(path: string, failAfter?: number): Promise<FileReader> {
    const r = new FileReader(await Deno.open(path), failAfter);
    r.pump();
    return r;
  }

  protected async next(): Promise<Uint8Array | null> {
    if (this.failAfter !== undefined && this.reads >= this.failAfter) {
      throw new Error("the disk went away");
    }
    this.reads++;
    const buf = new Uint8Array(4096);
    const n = await this.file.read(buf);
    if (n === null) {
      this.file.close();
      return null;
    }
    return buf.subarray(0, n);
  }

  protected failure(error: unknown): unknown {
    this.file.close();
    return { failed: (error as Error).message };
  }

  protected override paused(): void {
    this.pauses++;
  }

  /** Reads until the end (or a failure), waiting when nothing is buffered; the bytes in order. */
  async all(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (;;) {
      await this.whenReadable();
      const chunk = this.read(1000);
      if (chunk === null) break;
      parts.push(chunk);
    }
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) out.set(p, (at += p.length) - p.length);
    return out;
  }
}

Deno.test("a background reader stops at READ_AHEAD and goes on as the guest takes bytes, to the end", async () => {
  const path = await Deno.makeTempFile();
  const data = new Uint8Array(4 * READ_AHEAD).map((_, i) => (i * 7) % 251);
  await Deno.writeFile(path, data);
  const r = await FileReader.open(path);
  // Wait until it paused with a full buffer: it read ahead READ_AHEAD bytes, not the file.
  while (r.pauses === 0) await new Promise((ok) => setTimeout(ok, 1));
  assert.equal(r.reads, READ_AHEAD / 4096, "it paused once full");
  assert.deepEqual(await r.all(), data);
  assert.ok(r.pauses > 1, "it paused and went on again");
});

Deno.test("a read that fails ends the stream with the failure, after the bytes read before it", async () => {
  const path = await Deno.makeTempFile();
  await Deno.writeFile(path, new Uint8Array(3 * 4096).fill(9));
  const r = await FileReader.open(path, 2);
  const parts: Uint8Array[] = [];
  let failure: unknown;
  try {
    for (;;) {
      await r.whenReadable();
      const chunk = r.read(100_000);
      if (chunk === null) break;
      parts.push(chunk);
    }
  } catch (e) {
    failure = e;
  }
  assert.equal(parts.reduce((n, p) => n + p.length, 0), 2 * 4096);
  assert.deepEqual(failure, { failed: "the disk went away" });
  assert.equal(r.read(1), null, "then the end");
});
