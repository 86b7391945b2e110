/**
 * The network of a process (section 4.7) end to end: a real component
 * (`tests/plugins/net`) uses `wasi:http` and `wasi:sockets` through real
 * sandboxes, against servers and clients in this test. Only loopback is
 * reachable here, so HTTPS (the same `fetch` path with scheme `https`) is
 * not exercised.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, TestHost } from "./helpers/host.ts";
import type { Entry } from "../core/journal/journal.ts";
import { portBelowEphemeral } from "./helpers/net.ts";

const net = await builtTestPlugin("net");

const test = hostTests({ plugins: { net } });

/** A JSON-lines connection from the test to a server plugin. */
class LineClient {
  private buffer = "";
  private decoder = new TextDecoder();

  private constructor(readonly conn: Deno.TcpConn) {}

  static async connect(port: number): Promise<LineClient> {
    return new LineClient(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  async send(line: string): Promise<void> {
    await this.conn.write(new TextEncoder().encode(line + "\n"));
  }

  /** The next line, or null at the end of the connection. */
  async line(): Promise<string | null> {
    const buf = new Uint8Array(4096);
    for (;;) {
      const nl = this.buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        return line;
      }
      const n = await this.conn.read(buf).catch(() => null);
      if (n === null) return null;
      this.buffer += this.decoder.decode(buf.subarray(0, n), { stream: true });
    }
  }

  async ask(value: unknown): Promise<Record<string, unknown>> {
    await this.send(JSON.stringify(value));
    const line = await this.line();
    assert.ok(line !== null, "the server closed the connection");
    return JSON.parse(line);
  }

  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

/** True if the test can bind 127.0.0.1:port (and releases it again). */
function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Starts the echo server plugin detached; resolves with its pid and port (read from the world, as another process would). */
async function startServer(h: TestHost): Promise<{ pid: string; port: number }> {
  const r = await h.result<{ pid: string; port: number }>("core.call", {
    method: "net.serve",
    params: { path: "/state/net/port" },
    detach: true,
  });
  const port = Number(await Deno.readTextFile(`${h.root}/state/net/port`));
  assert.equal(port, r.port, "the port file and the answer agree");
  assert.ok(h.host.table.get(r.pid), "the server outlives its caller");
  return { pid: r.pid, port };
}

test("an outgoing HTTP request carries method, path, headers and body; the plugin reads the response", async (h) => {
  const seen: { method: string; url: string; headers: Headers; body: string }[] = [];
  const gzipped = new Uint8Array(
    await new Response(
      new Blob(["a gzipped body"]).stream().pipeThrough(new CompressionStream("gzip")),
    )
      .arrayBuffer(),
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: await req.text() });
    const path = new URL(req.url).pathname;
    if (path === "/moved") {
      return new Response(null, { status: 302, headers: { location: "/elsewhere" } });
    }
    if (path === "/gzip") return new Response(gzipped, { headers: { "content-encoding": "gzip" } });
    return new Response(`got ${req.method}`, {
      status: 201,
      headers: { "x-reply": "yes", "content-type": "text/plain" },
    });
  });
  try {
    const authority = `127.0.0.1:${server.addr.port}`;
    const r = await h.result<Record<string, unknown>>("net.http", {
      method: "POST",
      authority,
      path: "/notes/add?x=1",
      headers: [["X-Test", "value 1"], ["content-type", "application/json"]],
      body: '{"text":"hello from a plugin"}',
    });
    assert.equal(r.status, 201);
    assert.equal(r.body, "got POST");
    const headers = new Map(r.headers as [string, string][]);
    assert.equal(headers.get("x-reply"), "yes");
    assert.equal(headers.get("content-type"), "text/plain");
    assert.equal(r.immutable_headers, "Immutable", "a request's own headers cannot change");
    assert.equal(seen.length, 1);
    assert.equal(seen[0].method, "POST");
    assert.equal(seen[0].url, `http://${authority}/notes/add?x=1`);
    assert.equal(seen[0].headers.get("x-test"), "value 1");
    assert.equal(seen[0].headers.get("content-type"), "application/json");
    assert.equal(seen[0].body, '{"text":"hello from a plugin"}');

    // A body written after `handle` streams into the running request.
    const streamed = await h.result<Record<string, unknown>>("net.http", {
      method: "PUT",
      authority,
      path: "/late",
      body: "written after handle, in chunks of seven bytes",
      body_first: false,
    });
    assert.equal(streamed.status, 201);
    assert.equal(seen[1].method, "PUT");
    assert.equal(seen[1].body, "written after handle, in chunks of seven bytes");

    const get = await h.result<Record<string, unknown>>("net.http", {
      method: "GET",
      authority,
      path: "/",
      body_first: false, // its empty body is finished after `handle`, as many clients do
    });
    assert.equal(get.status, 201);
    assert.equal(seen[2].body, "");
    assert.equal(
      seen[2].headers.get("accept-encoding"),
      "identity",
      "no coding unless the guest asks",
    );

    // What a request costs a call: a GET per call, against a call that does no I/O.
    const timed = async (method: string, params: Record<string, unknown>) => {
      const ms: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await h.result(method, params);
        ms.push(performance.now() - t0);
      }
      return median(ms);
    };
    const withGet = await timed("net.http", { authority, path: "/" });
    const without = await timed("net.dns", { name: "127.0.0.1" });
    console.log(
      `http: a call making one GET ${withGet.toFixed(2)} ms, a call without I/O ${
        without.toFixed(2)
      } ms`,
    );

    // Redirects reach the guest as they are.
    const moved = await h.result<Record<string, unknown>>("net.http", {
      authority,
      path: "/moved",
    });
    assert.equal(moved.status, 302);
    assert.equal(new Map(moved.headers as [string, string][]).get("location"), "/elsewhere");

    // A gzip body the guest asked for arrives decoded, without the coding's headers.
    const gz = await h.result<Record<string, unknown>>("net.http", {
      authority,
      path: "/gzip",
      headers: [["accept-encoding", "gzip"]],
    });
    assert.equal(gz.body, "a gzipped body");
    const gzHeaders = new Map(gz.headers as [string, string][]);
    assert.equal(gzHeaders.has("content-encoding"), false);
    assert.equal(gzHeaders.has("content-length"), false);
  } finally {
    await server.shutdown();
  }
});

test("HTTP failures come back as WIT error codes, and the host stays healthy", async (h) => {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = closed.addr.port;
  closed.close();
  const refused = await h.result<Record<string, string>>("net.http", {
    authority: `127.0.0.1:${port}`,
    path: "/",
  });
  assert.equal(refused.http_error, "ConnectionRefused");
  const forbidden = await h.result<Record<string, string>>("net.http", {
    authority: `127.0.0.1:${port}`,
    headers: [["connection", "close"]],
  });
  assert.equal(forbidden.header_error, "Forbidden");
  const invalid = await h.result<Record<string, string>>("net.http", {
    authority: `127.0.0.1:${port}`,
    headers: [["bad name", "x"]],
  });
  assert.equal(invalid.header_error, "InvalidSyntax");
  const scheme = await h.result<Record<string, string>>("net.http", {
    scheme: "gopher",
    authority: "x",
    path: "/",
  });
  assert.equal(scheme.http_error, "HttpProtocolError");
  assert.deepEqual(await h.result("net.dns", { name: "127.0.0.1" }), { addresses: ["127.0.0.1"] });
});

test("a detached TCP server plugin serves other processes and the test until its stdin ends", async (h) => {
  const { pid, port } = await startServer(h);

  // Another process connects, sends lines and reads the replies.
  const r = await h.result<
    {
      replies: Record<string, unknown>[];
      connect_us: number;
      remote_port: number;
      reconnect_us: number[];
    }
  >("net.tcp_send", { port, lines: [{ n: 1 }, { n: 2, text: "two" }], reconnects: 50 });
  assert.deepEqual(r.replies.map((x) => x.echo), [{ n: 1 }, { n: 2, text: "two" }]);
  assert.ok(r.replies.every((x) => x.pid === pid), "the server answered");
  assert.equal(r.remote_port, port);
  assert.equal(r.reconnect_us.length, 50, "50 more connections, each answered");

  // Several processes at once.
  const many = await Promise.all(
    [1, 2, 3, 4, 5].map((i) =>
      h.result<{ replies: { echo: unknown }[] }>("net.tcp_send", { port, lines: [{ i }] })
    ),
  );
  assert.deepEqual(many.map((m) => m.replies[0].echo), [1, 2, 3, 4, 5].map((i) => ({ i })));

  // The test connects too; a line that is not JSON gets an error reply, and the connection goes on.
  const connects: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const c = await LineClient.connect(port);
    assert.deepEqual((await c.ask({ i })).echo, { i });
    connects.push(performance.now() - t0);
    c.close();
  }
  const c = await LineClient.connect(port);
  await c.send("not json");
  assert.equal(JSON.parse((await c.line())!).error, "not json");
  const rtts: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    assert.deepEqual((await c.ask({ i })).echo, { i });
    rtts.push(performance.now() - t0);
  }
  console.log(
    `tcp: plugin→plugin first connect ${r.connect_us} µs, connect + first reply median ` +
      `${
        (median(r.reconnect_us) / 1000).toFixed(2)
      } ms; test→plugin connect + first reply median ` +
      `${median(connects).toFixed(2)} ms; round trip median ${median(rtts).toFixed(3)} ms`,
  );

  // EOF on stdin ends the server; its listener and connections go with it.
  assert.deepEqual(await h.result("core.stop", { pid }), {});
  assert.equal(await c.line(), null, "the open connection was closed");
  c.close();
  const lines = (await h.result<Entry[]>("core.log", { pid, limit: 100 })).map((e) => e.line);
  assert.ok(lines.some((l) => /^stdin closed after \d+ connections$/.test(l)), lines.join("\n"));
  assert.ok(
    lines.some((l) => l.includes('"event":"exit"') && l.includes('"status":0')),
    lines.join("\n"),
  );
  const t0 = performance.now();
  await eventually(() => portIsFree(port), "the port to be free again", 2000);
  console.log(`tcp: port free ${(performance.now() - t0).toFixed(1)} ms after core.stop answered`);
});

test("DNS: localhost and IP literals resolve, a bad name is invalid-argument", async (h) => {
  const r = await h.result<{ addresses: string[] }>("net.dns", { name: "localhost" });
  assert.ok(
    r.addresses.includes("127.0.0.1") || r.addresses.includes("0:0:0:0:0:0:0:1"),
    JSON.stringify(r.addresses),
  );
  assert.deepEqual(await h.result("net.dns", { name: "::1" }), { addresses: ["0:0:0:0:0:0:0:1"] });
  assert.deepEqual(await h.result("net.dns", { name: "not a name" }), {
    error: "invalid-argument",
  });
  const missing = await h.result<{ error: string }>("net.dns", { name: "no-such-host.invalid" });
  assert.match(
    missing.error,
    /^(name-unresolvable|temporary-resolver-failure|permanent-resolver-failure)$/,
  );
});

test("UDP: two sockets of a process exchange datagrams; invalid sends are invalid-argument", async (h) => {
  const r = await h.result<Record<string, unknown>>("net.udp_pair");
  assert.equal(r.b_got, "ping");
  assert.equal(r.b_got_from, r.a_port);
  assert.equal(r.a_got, "pong");
  assert.equal(r.a_got_from, r.b_port);
  assert.equal(r.b_remote, r.a_port);
  assert.equal(r.send_without_address, "invalid-argument");
  assert.equal(r.send_to_other_than_connected, "invalid-argument");
});

test("socket errors are WIT codes: refused, address in use, closed peer, invalid states", async (h) => {
  // Below the ephemeral range: once closed, no test running beside this one is given it.
  const held = portBelowEphemeral();
  const port = held.addr.port;
  try {
    assert.deepEqual(await h.result("net.tcp_bind", { port }), {
      error: "address-in-use",
      step: "start-bind",
    });
  } finally {
    held.close();
  }
  assert.deepEqual(await h.result("net.tcp_connect", { port }), { error: "connection-refused" });

  // A peer that accepts and closes at once: the read sees the end, a later write fails.
  const peer = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closer = (async () => {
    const conn = await peer.accept();
    conn.close();
  })();
  const closedPeer = await h.result<{ read: string; write: string }>("net.tcp_peer_closed", {
    port: peer.addr.port,
  });
  await closer;
  peer.close();
  assert.equal(closedPeer.read, "closed");
  assert.match(closedPeer.write, /^failed: .*connection-reset/);

  assert.deepEqual(await h.result("net.tcp_states"), {
    listen_unbound: "invalid-state",
    finish_bind_not_started: "not-in-progress",
    finish_connect_not_started: "not-in-progress",
    local_address_unbound: "invalid-state",
    accept_not_listening: "invalid-state",
    bind_wrong_family: "invalid-argument",
    connect_port_zero: "invalid-argument",
    start_bind: "ok",
    start_bind_again: "invalid-state",
    finish_bind: "ok",
    remote_address_unconnected: "invalid-state",
    start_listen: "ok",
    finish_listen: "ok",
    is_listening: true,
    connect_listening: "invalid-state",
    accept_nothing_pending: "would-block",
    shutdown_listening: "invalid-state",
    backlog: "ok",
    keep_alive: "ok",
    keep_alive_enabled: true,
    hop_limit_zero: "invalid-argument",
  });

  // The host is fine: a bind and a connect work afterwards.
  const bound = await h.result<{ ok: boolean; port: number }>("net.tcp_bind", { port: 0 });
  assert.equal(bound.ok, true);
  assert.ok(bound.port > 0);
});

test("a killed server's listener and connections are released", async (h) => {
  const { pid, port } = await startServer(h);
  const c = await LineClient.connect(port);
  assert.deepEqual((await c.ask({ before: "kill" })).echo, { before: "kill" });
  assert.ok(!portIsFree(port), "the server holds its port");
  assert.deepEqual(await h.result("core.kill", { pid }), {});
  assert.equal(await c.line(), null, "the connection ended with the server");
  c.close();
  await eventually(() => portIsFree(port), "the port to be free");
  const again = await h.result<{ ok: boolean; port: number }>("net.tcp_bind", { port });
  assert.deepEqual(again, { ok: true, port }, "a plugin can bind the port again");
});

test("a listener that a process never dropped is released when the process exits", async (h) => {
  const { port } = await h.result<{ port: number }>("net.tcp_listen_exit");
  await eventually(
    () => !h.host.table.all().some((p) => p.method === "tcp_listen_exit"),
    "the process to end",
  );
  assert.ok(portIsFree(port), "the port was released with the process");
  // The sandbox that ran it runs the next process normally.
  assert.deepEqual(await h.result("net.tcp_connect", { port }), { error: "connection-refused" });
});

test("endpoints: a client connects through an endpoint file, and a stale file or a wrong interface connects nothing", async (h) => {
  // The server writes its endpoint file in /run (a singleton) and serves JSON lines.
  const server = await h.result<{ port: number; pid: string }>("core.call", {
    method: "net.serve",
    params: { endpoint: { path: "/run/echo", interface: "control" } },
    detach: true,
  });
  const file = new TextDecoder().decode(await h.host.fs.read("/run/echo"));
  assert.equal(file, `tcp:127.0.0.1:${server.port} ${server.pid} control\n`);
  const ok = await h.result<{ replies: { echo: unknown; pid: string }[] }>("net.endpoint_send", {
    path: "/run/echo",
    interface: "control",
    lines: [{ jsonrpc: "2.0", id: 1, method: "stats", params: {} }],
  });
  assert.deepEqual(ok.replies[0].echo, { jsonrpc: "2.0", id: 1, method: "stats", params: {} });
  assert.equal(ok.replies[0].pid, server.pid);
  const wrong = await h.result<{ error: string; connected: boolean }>("net.endpoint_send", {
    path: "/run/echo",
    interface: "admin",
  });
  assert.match(wrong.error, /serves control, not admin/);
  assert.equal(wrong.connected, false);

  // The owner ends; a new listener takes over its port: the stale file must not lead there.
  await h.result("core.stop", { pid: server.pid });
  const squatter = await eventually(() => {
    try {
      return Deno.listen({ hostname: "127.0.0.1", port: server.port });
    } catch {
      return false; // the old connections still linger on the port
    }
  }, "the old port to be free");
  let accepted = 0;
  (async () => {
    for await (const c of squatter) (accepted++, c.close());
  })();
  const stale = await h.result<{ error: string; connected: boolean }>("net.endpoint_send", {
    path: "/run/echo",
    interface: "control",
  });
  squatter.close();
  assert.match(
    stale.error,
    new RegExp(`stale endpoint /run/echo: its owner ${server.pid} has ended`),
  );
  assert.equal(stale.connected, false);
  assert.equal(accepted, 0, "no connection was made");
});
