/**
 * The network of a process (section 4.7): `wasi:sockets` (TCP, UDP, DNS) and
 * `wasi:http/outgoing-handler`, on Deno's networking. Every process gets the
 * whole network (the spec grants it; the sandbox runs with `--allow-net`).
 * Sockets, listeners and requests are registered with the process's
 * {@link ProcessResources} and end with it.
 *
 * This module owns `wasi:sockets/network` (its {@link Network} handle is in
 * `network_capability.ts`, which TCP, UDP and name lookups share) and
 * `wasi:sockets/instance-network`, and puts the interfaces of the other
 * modules together.
 *
 * @module
 */

import type { ProcessResources } from "./resources.ts";
import { Network } from "./network_capability.ts";
import { networkErrorCode } from "./socket_errors.ts";
import { tcpInterfaces } from "./tcp.ts";
import { udpInterfaces } from "./udp.ts";
import { ipNameLookupInterface } from "./ip_name_lookup.ts";
import { httpTypesInterface } from "./http_types.ts";
import { outgoingHandlerInterface } from "./http.ts";

/** Builds the `wasi:sockets/*` and `wasi:http/*` interfaces of one process. */
export function networkInterfaces(resources: ProcessResources): Record<string, unknown> {
  return {
    "wasi:sockets/network": { Network, networkErrorCode },
    "wasi:sockets/instance-network": { instanceNetwork: () => new Network() },
    ...tcpInterfaces(resources),
    ...udpInterfaces(resources),
    "wasi:sockets/ip-name-lookup": ipNameLookupInterface,
    "wasi:http/types": httpTypesInterface,
    "wasi:http/outgoing-handler": outgoingHandlerInterface(resources),
  };
}
