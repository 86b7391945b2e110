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

/**
 * A listener on a free TCP port of 127.0.0.1 below Linux's ephemeral range (32768 on):
 * no listener on port 0 and no outgoing connection of a test beside this one
 * is given it, so a test can count on nothing answering there after it closes
 * its own listener.
 */
export function portBelowEphemeral(): Deno.TcpListener {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      return Deno.listen({ hostname: "127.0.0.1", port });
    } catch { /* taken: another */ }
  }
  throw new Error("no free port in 20000-31999");
}
