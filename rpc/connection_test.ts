import { strict as assert } from "node:assert";
import { Connection } from "./connection.ts";
import { ErrorCode, RpcError } from "./errors.ts";
import { LineTransport } from "./line_transport.ts";
import { memoryTransportPair } from "./memory_transport.ts";
import { errorResponse, type Request, response } from "./message.ts";

/** A peer that answers `echo` with its params, `fail` with -32042, and keeps `hang` waiting. */
function peer(): [Connection, Connection, Request[]] {
  const [a, b] = memoryTransportPair();
  const client = new Connection(a, { closedMessage: "the peer went away" });
  const server = new Connection(b);
  const seen: Request[] = [];
  server.onrequest = (req) => {
    seen.push(req);
    if (req.id === undefined || req.method === "hang") return;
    const id = req.id;
    if (req.method === "fail") {
      server.respond(errorResponse(id, { code: -32042, message: "asked to fail", data: { x: 1 } }));
    } else {
      // Later requests are answered first.
      setTimeout(() => server.respond(response(id, req.params)), 10 - 3 * Number(req.params.n));
    }
  };
  return [client, server, seen];
}

Deno.test("requests get their own answers, in any order, by id", async () => {
  const [client, server] = peer();
  const answers = await Promise.all([1, 2, 3].map((n) => client.call("echo", { n })));
  assert.deepEqual(answers, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  const failed = await client.request("fail");
  assert.deepEqual(failed.error, { code: -32042, message: "asked to fail", data: { x: 1 } });
  await assert.rejects(
    client.call("fail"),
    (e) => e instanceof RpcError && e.code === -32042 && e.message === "asked to fail",
  );
  client.close();
  await server.closed;
});

Deno.test("closing fails every pending call at once, and every later one", async () => {
  const [client, server, seen] = peer();
  const waiting = [client.request("hang"), client.request("hang")];
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(seen.length, 2);
  server.close();
  for (const r of await Promise.all(waiting)) {
    assert.deepEqual(r.error, { code: ErrorCode.InternalError, message: "the peer went away" });
  }
  await client.closed;
  assert.equal(client.isClosed, true);
  const late = await client.request("echo");
  assert.equal(late.error?.message, "the peer went away");
});

Deno.test("notifications reach onrequest without an id, and ids can be named", async () => {
  const [a, b] = memoryTransportPair();
  let n = 0;
  const client = new Connection(a, { nextId: () => `core-${++n}` });
  const server = new Connection(b);
  const got: Request[] = [];
  server.onrequest = (req) => {
    got.push(req);
    if (req.id !== undefined) server.respond(response(req.id, req.id));
  };
  client.notify("core.notify", { name: "text" });
  assert.equal(await client.call("x.y"), "core-1");
  assert.deepEqual(got.map((r) => [r.id, r.method]), [[undefined, "core.notify"], [
    "core-1",
    "x.y",
  ]]);
  client.close();
});

Deno.test("a line transport reads answers from a stream, skips other lines, and ends with it", async () => {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const fromClient = new TransformStream<Uint8Array, Uint8Array>();
  const client = new Connection(
    new LineTransport({
      readable: toClient.readable,
      writable: fromClient.writable,
      close: () => {},
    }),
    { closedMessage: "the host closed the connection" },
  );
  const answer = client.request("ping", {});
  const sent = await fromClient.readable.getReader().read();
  const req = JSON.parse(new TextDecoder().decode(sent.value!));
  assert.deepEqual(req, { jsonrpc: "2.0", id: 1, method: "ping", params: {} });
  const w = toClient.writable.getWriter();
  const enc = new TextEncoder();
  await w.write(enc.encode(`not json\n{"jsonrpc":"2.0","id":1,"result":"pong"}\n`));
  assert.equal((await answer).result, "pong");
  const pending = client.request("ping", {});
  await w.close();
  assert.equal((await pending).error?.message, "the host closed the connection");
});
