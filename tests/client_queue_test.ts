/**
 * Every queue toward a client is bounded (PROTOCOL 4.9, `client_queue_mib`):
 * a control-socket client that sends calls and never reads its answers is
 * closed once what waits for it passes the bound, with a `limit` event in
 * the journal, and other clients go on being served; an MCP stdio client
 * that never reads gets its session closed, and `sausage mcp` ends.
 */

import { strict as assert } from "node:assert";
import { ControlServer } from "../core/control/control_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { World } from "../core/world/world.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { mcpInitialize } from "./helpers/mcp.ts";
import { CHECKOUT, launcher } from "./helpers/cli.ts";

const probe = await builtTestPlugin("probe");
const mcpprobe = await builtTestPlugin("mcpprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };
const MiB = 2 ** 20;

/** The `limit` events of the journal for `client_queue_mib`. */
function queueLimits(h: TestHost): Record<string, unknown>[] {
  return h.host.journal.query({ grep: "client_queue_mib", limit: 100 })
    .filter((e) => e.pid === "core")
    .map((e) => JSON.parse(e.line))
    .filter((ev) => ev.event === "limit");
}

Deno.test({
  name:
    "a control client that never reads is closed past client_queue_mib, journaled; others go on",
  ...opts,
}, async () => {
  const h = await TestHost.start({
    plugins: { probe },
    files: { "config/limits.json": JSON.stringify({ client_queue_mib: 1 }) },
  });
  const control = await ControlServer.start(h.host);
  try {
    const conn = await Deno.connect({ transport: "unix", path: control.path });
    const enc = new TextEncoder();
    await conn.write(
      enc.encode(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "$/hello" }) + "\n"),
    );
    // 2,000 calls of 16 KiB answers each (32 MiB), never read: 32 times the bound.
    const text = "x".repeat(16 * 1024);
    const CALLS = 2000;
    const sent = (async () => {
      try {
        for (let i = 1; i <= CALLS; i++) {
          const line = { jsonrpc: "2.0", id: i, method: "probe.echo", params: { text } };
          await conn.write(enc.encode(JSON.stringify(line) + "\n"));
        }
      } catch { /* the host closed it */ }
    })();
    await eventually(() => queueLimits(h).length > 0, "the client_queue_mib limit event", 120_000);
    const [ev] = queueLimits(h);
    assert.equal(ev.value, 1);
    assert.equal(ev.caller, "console");
    // What waited for it when it was closed: the bound, and one write more at most.
    assert.ok(
      (ev.queued_bytes as number) <= 2 * MiB,
      `${ev.queued_bytes} bytes waited for the client`,
    );
    // Another client is served meanwhile and after.
    const other = await WorldClient.connect(new World(h.root));
    assert.ok(other);
    try {
      assert.deepEqual(await other.request("probe.echo", { n: 1 }), { n: 1 });
    } finally {
      other.close();
    }
    // The connection was closed by the host: reading it ends (after what was already written).
    const buf = new Uint8Array(1 << 20);
    let got = 0;
    await eventually(
      async () => {
        try {
          const n = await conn.read(buf);
          if (n === null) return true;
          got += n;
          return false;
        } catch {
          return true; // reset
        }
      },
      "the connection to end",
      60_000,
    );
    assert.ok(got < 8 * MiB, `the client could read ${got} bytes before the end`);
    await sent;
    conn.close();
  } finally {
    await h.close();
  }
});

Deno.test({
  name: "an MCP stdio client that never reads is closed past client_queue_mib; its process ends",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { mcpprobe },
    files: { "config/limits.json": JSON.stringify({ client_queue_mib: 1 }) },
  });
  const child = new Deno.Command(launcher, {
    args: ["mcp", world],
    cwd: CHECKOUT,
    stdin: "piped",
    stdout: "piped", // never read
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const send = (msg: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  try {
    await send(mcpInitialize(0));
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // 500 tool calls of 16 KiB answers each (8 MiB: the failure's data is its params), none read.
    const why = "x".repeat(16 * 1024);
    for (let i = 1; i <= 500; i++) {
      await send({
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "mcpprobe_fail", arguments: { why } },
      });
    }
  } catch { /* the session closed: its stdin is gone */ }
  const ended = await Promise.race([
    child.status,
    new Promise<null>((r) => setTimeout(() => r(null), 60_000)),
  ]);
  if (!ended) child.kill("SIGKILL");
  await writer.close().catch(() => {});
  const said = await stderr;
  await child.stdout.cancel();
  assert.ok(ended, `sausage mcp did not end by itself: ${said}`);
  assert.match(
    said,
    /wait for a client that does not read them, past "client_queue_mib" \(1 MiB/,
    said,
  );
});

Deno.test({
  name:
    "an MCP HTTP client that never reads its event stream: the session is closed past client_queue_mib",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { mcpprobe },
    files: { "config/limits.json": JSON.stringify({ client_queue_mib: 1 }) },
  });
  const server = new Deno.Command(launcher, {
    args: ["mcp", world, "--http", "0"],
    cwd: CHECKOUT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let said = "";
  const drained = (async () => {
    for await (const text of server.stderr.pipeThrough(new TextDecoderStream())) said += text;
  })();
  try {
    const [, url, tokenFile] = await eventually(
      () => /(http:\/\/127\.0\.0\.1:\d+\/mcp).*token is in (\S+)/.exec(said),
      "the server's address",
      60_000,
    );
    const token = (await Deno.readTextFile(tokenFile)).trim();
    const post = (body: unknown, session?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
          ...session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {},
        },
        body: JSON.stringify(body),
      });
    const init = await post(mcpInitialize(1));
    assert.equal(init.status, 200);
    await init.body?.cancel();
    const session = init.headers.get("mcp-session-id")!;
    assert.ok(session);
    await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).body
      ?.cancel();
    // 200,000 progress notifications into one call's event stream (~30 MB), never read.
    const unread = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "mcpprobe_progress",
        arguments: { count: 200_000 },
        _meta: { progressToken: 7 },
      },
    }, session);
    assert.equal(unread.status, 200);
    await eventually(() => /past "client_queue_mib" \(1 MiB/.test(said), "the overflow", 120_000);
    // The session is closed; a new one is served.
    const again = await post({ jsonrpc: "2.0", id: 3, method: "ping" }, session);
    assert.equal(again.status, 404, "the closed session is gone");
    await again.body?.cancel();
    const other = await post(mcpInitialize(4));
    assert.equal(other.status, 200);
    await other.body?.cancel();
    await unread.body?.cancel().catch(() => {});
  } finally {
    server.kill("SIGTERM");
    // A server stuck on a stream nobody reads does not end on SIGTERM: killed after 10 s.
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await server.status;
    clearTimeout(timer);
    await drained;
  }
});
