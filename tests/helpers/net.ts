/**
 * Network helpers for tests.
 *
 * @module
 */

/** A TCP port of 127.0.0.1 that is free now (another process may take it later). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
