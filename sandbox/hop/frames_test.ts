import assert from "node:assert/strict";
import { decodeFrames, encodeFrames, FrameDecoder, FrameError } from "./frames.ts";
import { checkFromSandbox, checkToSandbox } from "./protocol_check.ts";
import type { FromSandbox, ToSandbox } from "./protocol.ts";
import { rawDuplex, StreamLink } from "./link.ts";

const line = '{"jsonrpc":"2.0","id":"a\\"b","result":{"t":"é 🌭\\n","n":18446744073709551615}}';

const toSandbox: ToSandbox[] = [
  {
    op: "run",
    pid: "p-1",
    memoryLimit: 1 << 20,
    maxLine: 1024,
    dir: "/c",
    env: [["A", "b"]],
    world: "/w",
    request: line,
  },
  {
    op: "run",
    pid: "p-2",
    memoryLimit: 1,
    maxLine: 1,
    outputWindow: 4096,
    dir: "/c",
    env: [],
    world: "/w",
    onlyPreopens: true,
    preopens: [],
  },
  { op: "in", pid: "p-1", line: "" },
  { op: "in", pid: "p-1", line },
  { op: "eof", pid: "p-1" },
  { op: "ping", n: 5 },
  { op: "took", pid: "p-1", count: 4096 },
  { op: "fs-reply", pid: "p-1", id: 3, result: null },
];

Deno.test("frames carry every message and its line raw, whole, in order", () => {
  const bytes = encodeFrames(toSandbox);
  assert.ok(new TextDecoder().decode(bytes).includes(line), "the line travels verbatim");
  assert.deepEqual(decodeFrames(bytes, checkToSandbox, 1 << 20), toSandbox);
});

Deno.test("frames cut anywhere arrive the same (byte by byte)", () => {
  const msgs: FromSandbox[] = [
    { op: "ready" },
    { op: "out", pid: "p", line },
    { op: "err", pid: "p", line: "plain ✓" },
    { op: "exit", pid: "p", status: 1, error: "trap" },
    { op: "fs", pid: "p", id: 1, mount: "proc", call: { method: "stat", args: ["/x", true] } },
  ];
  const bytes = encodeFrames(msgs);
  const got: FromSandbox[] = [];
  const d = new FrameDecoder(checkFromSandbox, (m) => got.push(m), 1 << 20);
  for (let i = 0; i < bytes.length; i++) d.push(bytes.subarray(i, i + 1));
  assert.equal(d.pending, false);
  assert.deepEqual(got, msgs);
});

Deno.test("the receiver refuses a frame too long, a header not JSON, a message of the wrong shape", () => {
  const big = encodeFrames([{ op: "out", pid: "p", line: "x".repeat(100) }]);
  assert.throws(() => decodeFrames(big, checkFromSandbox, 50), FrameError);
  const bad = new Uint8Array([3, 0, 0, 0, 0, 0, 0, 0, 0x7b, 0x7b, 0x7b]);
  assert.throws(() => decodeFrames(bad, checkFromSandbox, 100), /not JSON/);
  for (
    const m of [
      { op: "out", pid: 1, line: "x" },
      { op: "exit", pid: "p" },
      { op: "spawn" },
      [1],
    ]
  ) {
    assert.throws(() => decodeFrames(encodeFrames([m]), checkFromSandbox, 1000), FrameError);
  }
  // A text on a message that has none.
  const ok = encodeFrames([{ op: "out", pid: "p", line: "x" }]);
  const header = new TextEncoder().encode('{"op":"ready","pid":"p"}');
  const forged = new Uint8Array(8 + header.length + 1);
  new DataView(forged.buffer).setUint32(0, header.length, true);
  new DataView(forged.buffer).setUint32(4, 2, true);
  forged.set(header, 8);
  forged[forged.length - 1] = 0x78;
  assert.ok(ok.length > 0);
  assert.throws(() => decodeFrames(forged, checkFromSandbox, 1000), /text on a message/);
});

Deno.test("a stream link sends a turn's messages in one write and closes on a bad message", async () => {
  const writes: Uint8Array[] = [];
  let feed: (b: Uint8Array | null) => void = () => {};
  const link = new StreamLink<ToSandbox, FromSandbox>({
    read: () => new Promise((r) => (feed = r)),
    write: (b) => void writes.push(b.slice()),
    close: () => {},
  }, { check: checkFromSandbox, maxFrame: 1000 });
  link.send({ op: "ping", n: 1 });
  link.send({ op: "eof", pid: "p" });
  await Promise.resolve();
  assert.equal(writes.length, 1);
  assert.deepEqual(decodeFrames(writes[0], checkToSandbox, 1000), [
    { op: "ping", n: 1 },
    { op: "eof", pid: "p" },
  ]);
  const got: FromSandbox[] = [];
  link.listen((m) => got.push(m));
  feed(encodeFrames([{ op: "pong", n: 1 }, { op: "exit", pid: "p" }]));
  assert.match(await link.closed, /its peer sent a message whose status is not a number/);
  assert.deepEqual(got, [{ op: "pong", n: 1 }]);
});

Deno.test("a raw duplex over a Unix socket pair carries frames both ways", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s`;
  const listener = Deno.listen({ transport: "unix", path });
  const [server, client] = await Promise.all([
    listener.accept(),
    Deno.connect({ transport: "unix", path }),
  ]);
  const a = new StreamLink<ToSandbox, FromSandbox>(rawDuplex(server), {
    check: checkFromSandbox,
    maxFrame: 1 << 20,
  });
  const b = new StreamLink<FromSandbox, ToSandbox>(rawDuplex(client), {
    check: checkToSandbox,
    maxFrame: 1 << 20,
  });
  const got: ToSandbox[] = [];
  const done = new Promise<void>((r) =>
    b.listen((m) => {
      got.push(m);
      if (m.op === "ping") b.send({ op: "pong", n: m.n });
      if (got.length === toSandbox.length) r();
    })
  );
  const pong = new Promise<FromSandbox>((r) => a.listen(r));
  for (const m of toSandbox) a.send(m);
  await done;
  assert.deepEqual(got, toSandbox);
  assert.deepEqual(await pong, { op: "pong", n: 5 });
  a.close();
  assert.equal(await b.closed, "its peer closed it");
  listener.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a big message goes out in slices, each moving lastMoved as the peer takes it", async () => {
  const taken: number[] = [];
  const times: number[] = [];
  // deno-lint-ignore prefer-const
  let link: StreamLink<ToSandbox, FromSandbox> | undefined;
  const io = {
    read: () => new Promise<Uint8Array | null>(() => {}),
    write: async (bytes: Uint8Array) => {
      await new Promise((r) => setTimeout(r, 5));
      taken.push(bytes.length);
      queueMicrotask(() => times.push(link!.lastMoved));
    },
    close() {},
  };
  link = new StreamLink<ToSandbox, FromSandbox>(io, { check: checkFromSandbox, maxFrame: 1 << 24 });
  const before = link.lastMoved;
  await new Promise((r) => setTimeout(r, 20));
  link.send({ ...toSandbox[0], op: "run", request: "x".repeat(1 << 20) } as ToSandbox);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(taken.length >= 4 && taken.every((n) => n <= 256 * 1024), JSON.stringify(taken));
  assert.ok(times.at(-1)! > before, "lastMoved advanced while the slices went out");
});
