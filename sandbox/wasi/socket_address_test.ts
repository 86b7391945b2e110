/** Address text ↔ WIT addresses, and the checks sockets make on a guest's address. */

import { strict as assert } from "node:assert";
import {
  hostnameOf,
  type IpSocketAddress,
  isIpv4Mapped,
  isNotUnicast,
  isUnspecified,
  parseIp,
  socketAddress,
} from "./socket_address.ts";

Deno.test("IPv4 and IPv6 text parse into WIT tuples and format back", () => {
  assert.deepEqual(parseIp("127.0.0.1"), { tag: "ipv4", val: [127, 0, 0, 1] });
  assert.deepEqual(parseIp("::1"), { tag: "ipv6", val: [0, 0, 0, 0, 0, 0, 0, 1] });
  assert.deepEqual(parseIp("[fe80::1%eth0]"), { tag: "ipv6", val: [0xfe80, 0, 0, 0, 0, 0, 0, 1] });
  assert.deepEqual(parseIp("::ffff:10.0.0.1"), {
    tag: "ipv6",
    val: [0, 0, 0, 0, 0, 0xffff, 0x0a00, 1],
  });
  for (const text of ["127.0.0.1", "::1", "2001:db8::8:800:200c:417a", "1:2:3:4:5:6:7:8", "::"]) {
    assert.equal(hostnameOf(parseIp(text)!), text);
  }
});

Deno.test("text that is not an IP address does not parse", () => {
  for (
    const text of [
      "localhost",
      "256.0.0.1",
      "1.2.3",
      "01.2.3.4",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "",
      ":::",
    ]
  ) {
    assert.equal(parseIp(text), undefined, text);
  }
});

Deno.test("the socket address checks: unspecified, IPv4-mapped, not unicast", () => {
  const v4 = (text: string) => socketAddress(text, 80)!;
  assert.ok(isUnspecified(v4("0.0.0.0")));
  assert.ok(isUnspecified(v4("::")));
  assert.ok(!isUnspecified(v4("127.0.0.1")));
  assert.ok(isIpv4Mapped(v4("::ffff:127.0.0.1")));
  assert.ok(!isIpv4Mapped(v4("::1")));
  assert.ok(isNotUnicast(v4("224.0.0.1")));
  assert.ok(isNotUnicast(v4("255.255.255.255")));
  assert.ok(isNotUnicast(v4("ff02::1")));
  assert.ok(!isNotUnicast(v4("10.1.2.3")));
  const addr: IpSocketAddress = {
    tag: "ipv6",
    val: { port: 8080, flowInfo: 0, address: [0, 0, 0, 0, 0, 0, 0, 1], scopeId: 0 },
  };
  assert.deepEqual(socketAddress("::1", 8080), addr);
});
