/**
 * The network of a process (section 4.7): `wasi:sockets` (TCP, UDP, DNS) and
 * `wasi:http/outgoing-handler`, on Deno's networking.
 *
 * @module
 */

import type { ProcessResources } from "./resources.ts";

/** Builds the `wasi:sockets/*` and `wasi:http/*` interfaces of one process. */
export function networkInterfaces(_resources: ProcessResources): Record<string, unknown> {
  return {};
}
