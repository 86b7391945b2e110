/**
 * `wasi:sockets/network` addresses and their text form: WIT's tuples of
 * octets and 16-bit groups ↔ the hostnames Deno and `node:` networking take
 * and report, plus the checks every socket makes on a guest's address
 * (family, unicast, unspecified, IPv4-mapped).
 *
 * @module
 */

/** `ip-address-family`. */
export type IpAddressFamily = "ipv4" | "ipv6";

/** `ipv4-address`: four octets. */
export type Ipv4Octets = [number, number, number, number];

/** `ipv6-address`: eight 16-bit groups. */
export type Ipv6Groups = [number, number, number, number, number, number, number, number];

/** `ip-address`, as jco passes it. */
export type IpAddress = { tag: "ipv4"; val: Ipv4Octets } | { tag: "ipv6"; val: Ipv6Groups };

/** `ipv4-socket-address`. */
export interface Ipv4SocketAddress {
  port: number;
  address: Ipv4Octets;
}

/** `ipv6-socket-address`. */
export interface Ipv6SocketAddress {
  port: number;
  flowInfo: number;
  address: Ipv6Groups;
  scopeId: number;
}

/** `ip-socket-address`, as jco passes it. */
export type IpSocketAddress =
  | { tag: "ipv4"; val: Ipv4SocketAddress }
  | { tag: "ipv6"; val: Ipv6SocketAddress };

/** The text form of an address's IP, as Deno takes it (`127.0.0.1`, `::1`). */
export function hostnameOf(addr: IpSocketAddress | IpAddress): string {
  const ip = Array.isArray(addr.val) ? addr.val : addr.val.address;
  if (addr.tag === "ipv4") return ip.join(".");
  return formatIpv6(ip);
}

/** Eight groups as compressed IPv6 text (the longest run of zero groups becomes `::`). */
function formatIpv6(groups: number[]): string {
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/** Parses IPv4 or IPv6 text (optionally in brackets, with a `%zone`); `undefined` when it is not an IP. */
export function parseIp(text: string): IpAddress | undefined {
  const t = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(t);
  if (v4) return { tag: "ipv4", val: v4 };
  const v6 = parseIpv6(t.replace(/%.*$/, ""));
  if (v6) return { tag: "ipv6", val: v6 };
  return undefined;
}

function parseIpv4(t: string): Ipv4Octets | undefined {
  const parts = t.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p))) return undefined;
  const n = parts.map(Number);
  return n.every((x) => x <= 255) ? n as Ipv4Octets : undefined;
}

function parseIpv6(t: string): Ipv6Groups | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(t)) return undefined;
  const halves = t.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === "") return [];
    const out: number[] = [];
    const parts = s.split(":");
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes(".")) {
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) {
        out.push(parseInt(p, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...head, ...new Array(missing).fill(0), ...tail] as Ipv6Groups;
}

/** A WIT socket address from a hostname and port that Deno reported; `undefined` if the hostname is not an IP. */
export function socketAddress(hostname: string, port: number): IpSocketAddress | undefined {
  const ip = parseIp(hostname);
  if (!ip) return undefined;
  if (ip.tag === "ipv4") return { tag: "ipv4", val: { port, address: ip.val } };
  return { tag: "ipv6", val: { port, flowInfo: 0, address: ip.val, scopeId: 0 } };
}

/** True for `0.0.0.0` and `::`. */
export function isUnspecified(addr: IpSocketAddress): boolean {
  return addr.val.address.every((x) => x === 0);
}

/** True for `::ffff:a.b.c.d`, which WASI refuses on IPv6 sockets. */
export function isIpv4Mapped(addr: IpSocketAddress): boolean {
  if (addr.tag !== "ipv6") return false;
  const g = addr.val.address;
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
}

/** True for multicast and (IPv4) broadcast addresses: not valid as a unicast peer or bind address. */
export function isNotUnicast(addr: IpSocketAddress): boolean {
  if (addr.tag === "ipv4") {
    const [a] = addr.val.address;
    return (a >= 224 && a <= 239) || addr.val.address.every((x) => x === 255);
  }
  return (addr.val.address[0] & 0xff00) === 0xff00;
}
