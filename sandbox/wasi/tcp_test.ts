/**
 * `wasi:sockets/tcp` on the host side, without a guest: the start/finish
 * state machine, streams over real loopback connections, and release at
 * process end.
 */

import { strict as assert } from "node:assert";
import { Network } from "./network_capability.ts";
import { ProcessResources } from "./resources.ts";
import { socketAddress } from "./socket_address.ts";
import { type InputStream, WRITE_BUDGET } from "./streams.ts";
import { TcpSocket } from "./tcp.ts";

const net = new Network();
const loopback = (port: number) => socketAddress("127.0.0.1", port)!;

/** Runs `f` until it stops failing with `would-block`, waiting on the socket's pollable. */
async function finish<T>(sock: TcpSocket, f: () => T): Promise<T> {
  for (;;) {
    try {
      return f();
    } catch (e) {
      if ((e as { payload?: string }).payload !== "would-block") throw e;
      await sock.subscribe().block();
    }
  }
}

function listening(resources: ProcessResources): [TcpSocket, number] {
  const s = new TcpSocket("ipv4", resources);
  s.startBind(net, loopback(0));
  s.finishBind();
  s.startListen();
  s.finishListen();
  return [s, s.localAddress().val.port];
}

async function readAll(input: InputStream, n: number): Promise<string> {
  let text = "";
  while (text.length < n) text += new TextDecoder().decode(await input.blockingRead(1024n));
  return text;
}

Deno.test("connect and accept give streams that carry bytes both ways", async () => {
  const resources = new ProcessResources();
  try {
    const [server, port] = listening(resources);
    assert.throws(() => server.accept(), { payload: "would-block" });
    const client = new TcpSocket("ipv4", resources);
    client.startConnect(net, loopback(port));
    assert.throws(() => client.finishConnect(), { payload: "would-block" });
    const [cIn, cOut] = await finish(client, () => client.finishConnect());
    const [peer, sIn, sOut] = await finish(server, () => server.accept());
    assert.equal(peer.remoteAddress().val.port, client.localAddress().val.port);
    await cOut.blockingWriteAndFlush(new TextEncoder().encode("ping"));
    assert.equal(await readAll(sIn, 4), "ping");
    await sOut.blockingWriteAndFlush(new TextEncoder().encode("pong"));
    assert.equal(await readAll(cIn, 4), "pong");
    client.shutdown("send");
    assert.throws(
      () => cOut.write(new Uint8Array(1)),
      (e: { tag: string }) => e.tag === "last-operation-failed",
    );
    await assert.rejects(sIn.blockingRead(10n), { tag: "closed" });
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("a failed connect is the WIT code, and the socket is unusable afterwards", async () => {
  const resources = new ProcessResources();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const s = new TcpSocket("ipv4", resources);
  s.startConnect(net, loopback(port));
  await assert.rejects(finish(s, () => s.finishConnect()), { payload: "connection-refused" });
  assert.throws(() => s.startConnect(net, loopback(port)), { payload: "invalid-state" });
  await resources.releaseAll();
});

Deno.test("bytes written just before the guest drops a socket still arrive", async () => {
  const resources = new ProcessResources();
  try {
    const [server, port] = listening(resources);
    const client = new TcpSocket("ipv4", resources);
    client.startConnect(net, loopback(port));
    const [, cOut] = await finish(
      client,
      () => client.finishConnect(),
    );
    const [, sIn] = await finish(server, () => server.accept());
    const big = new Uint8Array(4 << 20).fill(120);
    // Each write within check-write's budget (past it a write traps).
    for (let at = 0; at < big.length; at += WRITE_BUDGET) {
      cOut.write(big.subarray(at, at + WRITE_BUDGET));
    }
    client[Symbol.dispose]();
    let got = 0;
    for (;;) {
      try {
        got += (await sIn.blockingRead(1n << 20n)).length;
      } catch {
        break;
      }
    }
    assert.equal(got, big.length);
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("the end of a process releases its listeners and connections", async () => {
  const resources = new ProcessResources();
  const [, port] = listening(resources);
  const outside = await Deno.connect({ hostname: "127.0.0.1", port });
  await new Promise((r) => setTimeout(r, 20)); // accepted into the queue
  await resources.releaseAll();
  // Free the moment the release resolves (Deno frees it once the pending accept ended).
  Deno.listen({ hostname: "127.0.0.1", port }).close();
  assert.equal(
    await outside.read(new Uint8Array(8)).catch(() => null),
    null,
    "the queued connection was closed",
  );
  outside.close();
});
