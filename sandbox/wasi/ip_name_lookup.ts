/**
 * `wasi:sockets/ip-name-lookup` on the system resolver (`getaddrinfo`
 * through `node:dns`, so `/etc/hosts` and `localhost` work as in any other
 * program; `Deno.resolveDns` asks DNS servers only). The lookup runs in the
 * background; `resolve-next-address` says `would-block` until it is done.
 *
 * @module
 */

import { Pollable } from "./poll.ts";
import { Signal } from "./signal.ts";
import { fail, type SocketErrorCode, toSocketErrorCode } from "./socket_errors.ts";
import { type IpAddress, parseIp } from "./socket_address.ts";
import type { Network } from "./network_capability.ts";

/** A host name: dot-separated labels of letters, digits, `-` and `_`, at most 253 characters. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** `wasi:sockets/ip-name-lookup.resolve-address-stream`. */
export class ResolveAddressStream {
  private addresses: IpAddress[] | undefined;
  private error: SocketErrorCode | undefined;
  private readonly changed = new Signal();

  /** Starts resolving `name` (or yields it at once when it is an IP address). */
  constructor(name: string) {
    const ip = parseIp(name);
    if (ip) {
      this.addresses = [ip];
      return;
    }
    // Loaded at the first lookup: the first `node:` module costs a sandbox ~50 ms (udp.ts).
    import("node:dns/promises").then(({ lookup }) => lookup(name, { all: true, verbatim: true }))
      .then(
        (found) => {
          const seen = new Set<string>();
          this.addresses = [];
          for (const { address } of found) {
            const ip = parseIp(address);
            if (ip && !seen.has(address)) {
              seen.add(address);
              this.addresses.push(ip);
            }
          }
        },
        (e) => {
          const code = toSocketErrorCode(e);
          this.error = code === "unknown" ? "permanent-resolver-failure" : code;
        },
      ).finally(() => this.changed.notify());
  }

  /** The next address; `undefined` after the last; `would-block` while the lookup runs. */
  resolveNextAddress(): IpAddress | undefined {
    if (this.error) fail(this.error);
    if (!this.addresses) fail("would-block");
    return this.addresses.shift();
  }

  /** Ready when the lookup is done. */
  subscribe(): Pollable {
    return new Pollable(
      () => this.addresses !== undefined || this.error !== undefined,
      () => this.changed.wait(),
    );
  }
}

/** Starts resolving a host name or IP address text. */
function resolveAddresses(_network: Network, name: string): ResolveAddressStream {
  if (!parseIp(name) && !HOST_NAME.test(name)) fail("invalid-argument");
  return new ResolveAddressStream(name);
}

/** The `wasi:sockets/ip-name-lookup` interface. */
export const ipNameLookupInterface = { ResolveAddressStream, resolveAddresses };
