/**
 * A NATS publisher in a process of its own, for tests that need a host to
 * fall behind its inbound messages: publishes `count` messages of `bytes`
 * bytes each on `subject` as fast as the server takes them, flushes, and
 * ends. Credentials from `NATS_USER` and `NATS_PASSWORD`.
 *
 *     deno run --allow-all tests/helpers/nats_flood.ts <url> <subject> <count> <bytes>
 *
 * @module
 */

import { NatsClient } from "../../core/remote/nats_client.ts";

if (import.meta.main) {
  const [url, subject, count, bytes] = Deno.args;
  const c = await NatsClient.connect({
    url,
    user: Deno.env.get("NATS_USER"),
    password: Deno.env.get("NATS_PASSWORD"),
    inboxPrefix: `${subject}.inbox`,
  });
  const data = new Uint8Array(Number(bytes));
  for (let i = 0; i < Number(count); i++) {
    c.publish(subject, data);
    if (i % 100 === 99) await c.flush(); // the client's buffer stays small
  }
  await c.flush();
  c.close();
}
