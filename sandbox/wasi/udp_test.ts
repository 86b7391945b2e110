/**
 * `wasi:sockets/udp` on the host side, without a guest: the bind's
 * start/finish, datagrams over real loopback sockets, the "connected"
 * stream's filter, what a send refuses, and release at process end.
 */

import { strict as assert } from "node:assert";
import { Network } from "./network_capability.ts";
import { ProcessResources } from "./resources.ts";
import { type IpSocketAddress, socketAddress } from "./socket_address.ts";
import { UdpSocket } from "./udp.ts";
import type { IncomingDatagramStream } from "./udp_streams.ts";

const net = new Network();
const loopback = (port: number) => socketAddress("127.0.0.1", port)!;
const text = (s: string) => new TextEncoder().encode(s);

/** A socket bound on loopback (an ephemeral port), once its bind has settled. */
async function bound(resources: ProcessResources): Promise<[UdpSocket, IpSocketAddress]> {
  const s = new UdpSocket("ipv4", resources);
  s.startBind(net, loopback(0));
  for (;;) {
    try {
      s.finishBind();
      break;
    } catch (e) {
      if ((e as { payload?: string }).payload !== "would-block") throw e;
      await s.subscribe().block();
    }
  }
  return [s, s.localAddress()];
}

/** The next datagrams on `input`, waiting for at least one. */
async function receive(input: IncomingDatagramStream): Promise<string[]> {
  for (;;) {
    const got = input.receive(10n);
    if (got.length) return got.map((d) => new TextDecoder().decode(d.data));
    await input.subscribe().block();
  }
}

Deno.test("finish-bind before a start is not-in-progress; a bind settles and has a port", async () => {
  const resources = new ProcessResources();
  try {
    const s = new UdpSocket("ipv4", resources);
    assert.throws(() => s.finishBind(), { payload: "not-in-progress" });
    assert.throws(() => s.localAddress(), { payload: "invalid-state" });
    const [, addr] = await bound(resources);
    assert.ok(addr.val.port > 0);
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("datagrams go both ways between two unconnected sockets, with their senders", async () => {
  const resources = new ProcessResources();
  try {
    const [a, aAddr] = await bound(resources);
    const [b, bAddr] = await bound(resources);
    const [aIn, aOut] = a.stream(undefined);
    const [bIn, bOut] = b.stream(undefined);
    assert.equal(aOut.send([{ data: text("ping"), remoteAddress: bAddr }]), 1n);
    const got = await (async () => {
      for (;;) {
        const d = bIn.receive(1n);
        if (d.length) return d[0];
        await bIn.subscribe().block();
      }
    })();
    assert.equal(new TextDecoder().decode(got.data), "ping");
    assert.equal(got.remoteAddress.val.port, aAddr.val.port);
    bOut.send([{ data: text("pong"), remoteAddress: aAddr }]);
    assert.deepEqual(await receive(aIn), ["pong"]);
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("a connected stream keeps only its peer's datagrams and sends only to it", async () => {
  const resources = new ProcessResources();
  try {
    const [a] = await bound(resources);
    const [b, bAddr] = await bound(resources);
    const [c] = await bound(resources);
    const aAddr = a.localAddress();
    const [aIn, aOut] = a.stream(bAddr);
    const [, cOut] = c.stream(undefined);
    const [, bOut] = b.stream(undefined);
    cOut.send([{ data: text("from c"), remoteAddress: aAddr }]);
    bOut.send([{ data: text("from b"), remoteAddress: aAddr }]);
    assert.deepEqual(await receive(aIn), ["from b"]);
    assert.throws(
      () => aOut.send([{ data: text("x"), remoteAddress: c.localAddress() }]),
      { payload: "invalid-argument" },
    );
    assert.equal(aOut.send([{ data: text("to b") }]), 1n, "no address: the peer");
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("a send stops at the first bad datagram, and fails when the first is bad", async () => {
  const resources = new ProcessResources();
  try {
    const [a] = await bound(resources);
    const [, bAddr] = await bound(resources);
    const [, out] = a.stream(undefined);
    const tooLarge = new Uint8Array(65508);
    assert.throws(() => out.send([{ data: text("no address") }]), { payload: "invalid-argument" });
    assert.throws(
      () => out.send([{ data: tooLarge, remoteAddress: bAddr }]),
      { payload: "datagram-too-large" },
    );
    assert.throws(
      () => out.send([{ data: text("port 0"), remoteAddress: loopback(0) }]),
      { payload: "invalid-argument" },
    );
    const sent = out.send([
      { data: text("one"), remoteAddress: bAddr },
      { data: tooLarge, remoteAddress: bAddr },
      { data: text("three"), remoteAddress: bAddr },
    ]);
    assert.equal(sent, 1n);
  } finally {
    await resources.releaseAll();
  }
});

Deno.test("the end of a process closes its sockets: their streams are invalid-state", async () => {
  const resources = new ProcessResources();
  const [a] = await bound(resources);
  const [aIn, aOut] = a.stream(undefined);
  await resources.releaseAll();
  assert.throws(() => aIn.receive(1n), { payload: "invalid-state" });
  assert.throws(() => aOut.checkSend(), { payload: "invalid-state" });
});
