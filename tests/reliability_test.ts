/**
 * Reliability (issue 15's fault cases that run in seconds): line limits on
 * every channel, validation of what arrives on the control socket, and
 * answers that survive the host's own exit. Real hosts, real components.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { HELLO } from "../core/control/control_path.ts";

const probe = await builtTestPlugin("probe");
const launcher = new URL("../sausage", import.meta.url).pathname;
const opts = { sanitizeOps: false, sanitizeResources: false };

/** A host whose lines are limited to 1 MiB, with its control socket. */
async function smallLines(): Promise<{ h: TestHost; control: ControlServer }> {
  const h = await TestHost.start({
    plugins: { probe },
    files: { "config/limits.json": '{"line_mib": 1}' },
  });
  return { h, control: await ControlServer.start(h.host) };
}

/** A greeted connection to a control socket that collects every answer by id. */
class RawClient {
  private buf = "";
  private answers = new Map<unknown, Record<string, unknown>>();
  private reading: Promise<void>;

  private constructor(private conn: Deno.UnixConn) {
    this.reading = this.read();
  }

  static async open(path: string): Promise<RawClient> {
    const c = new RawClient(await Deno.connect({ transport: "unix", path }));
    await c.send(JSON.stringify({ jsonrpc: "2.0", id: "hello", method: HELLO }) + "\n");
    await c.answer("hello");
    return c;
  }

  async send(text: string | Uint8Array): Promise<void> {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    let n = 0;
    while (n < bytes.length) n += await this.conn.write(bytes.subarray(n));
  }

  answer(id: unknown): Promise<Record<string, unknown>> {
    return eventually(() => this.answers.get(id), `the answer to ${JSON.stringify(id)}`, 20_000);
  }

  private async read(): Promise<void> {
    const buf = new Uint8Array(65536);
    const dec = new TextDecoder();
    for (;;) {
      const n = await this.conn.read(buf).catch(() => null);
      if (n === null) return;
      this.buf += dec.decode(buf.subarray(0, n), { stream: true });
      let nl;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        const msg = JSON.parse(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
        this.answers.set(msg.id, msg);
      }
    }
  }

  async close(): Promise<void> {
    this.conn.close();
    await this.reading;
  }
}

Deno.test(
  { name: "a guest line over line_mib ends the process with -32002 that says so", ...opts },
  async () => {
    const { h, control } = await smallLines();
    try {
      const r = await h.call("probe.raw", { line: "x".repeat(2 * 2 ** 20), expect_reply: false });
      assert.equal(r.error?.code, -32002);
      assert.match(r.error!.message, /line limit: a line on stdout passed 1 MiB \("line_mib"/);
      // Just under the limit works, on stdin and stdout.
      const big = "y".repeat(2 ** 20 - 100);
      assert.deepEqual(await h.result("probe.echo", { big }), { big });
    } finally {
      await control.close();
      await h.close();
    }
  },
);

Deno.test({
  name: "the control socket: over-long lines, wrong types and bad limits get answers",
  ...opts,
}, async () => {
  const { h, control } = await smallLines();
  const c = await RawClient.open(control.path);
  try {
    // 3 MiB without a newline, then a request on the same connection.
    await c.send(new Uint8Array(3 * 2 ** 20).fill(97));
    await c.send("\n" + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "probe.noop" }) + "\n");
    assert.deepEqual((await c.answer(1)).result, {});
    const dropped = await c.answer(null);
    assert.match(
      (dropped.error as { message: string }).message,
      /line of over \d+ bytes was dropped: the limit is 1048576/,
    );
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["$/cat", { path: { toString: 1 } }, /"path" must be a string/],
      ["$/ls", { path: 7 }, /"path" must be a string/],
      ["core.log", { limit: -1 }, /"limit" must be an integer from 1 to 10000/],
      ["core.log", { limit: 1e308 }, /"limit" must be an integer from 1 to 10000/],
      ["core.log", { limit: 2.5 }, /"limit" must be an integer/],
      ["core.log", { pid: 5 }, /"pid" must be a string/],
      ["core.log", { since: "yesterday" }, /not a time or entry id/],
    ];
    for (const [i, [method, params, message]] of cases.entries()) {
      const id = `case-${i}`;
      await c.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      const a = await c.answer(id);
      const err = a.error as { code: number; message: string };
      assert.equal(err?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(a)}`);
      assert.match(err.message, message);
    }
    await c.send(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "probe.noop" }) + "\n");
    assert.deepEqual((await c.answer("last")).result, {}, "the connection still serves");
  } finally {
    await c.close();
    await control.close();
    await h.close();
  }
});

Deno.test(
  { name: "a guest that calls core.exit answers its caller before the host ends", ...opts },
  async () => {
    const world = await makeWorld({ plugins: { probe } });
    const host = new Deno.Command(launcher, {
      args: ["run", world, "--headless"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      await eventually(
        () => Deno.stat(`${world}/state/core/host.json`).then(() => true, () => false),
        "the host to start",
        30_000,
      );
      const out = await new Deno.Command(launcher, {
        args: ["call", world, "probe.call", '{"method": "core.exit", "params": {}}'],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      assert.equal(out.code, 0, dec.decode(out.stderr));
      // probe.call answers with the whole response core.exit gave it.
      assert.deepEqual(JSON.parse(dec.decode(out.stdout)).result, {});
      assert.equal((await host.status).code, 75);
    } finally {
      try {
        host.kill("SIGKILL");
      } catch { /* ended */ }
      await host.stderr.cancel();
    }
  },
);

Deno.test(
  { name: "names the core owns are refused wherever a plugin name enters", ...opts },
  async () => {
    const h = await TestHost.start({ plugins: { probe } });
    try {
      const bad = ["cargo", "core", "..", "../probe", "Probe", "a/b", "$/x", "", "x".repeat(65)];
      for (const plugin of bad) {
        for (
          const [method, params] of [
            ["core.activate", { plugin, wasm: "/plugins/probe/plugin.wasm" }],
            ["core.activate", { plugins: [{ plugin, wasm: "/plugins/probe/plugin.wasm" }] }],
            ["core.revert", { plugin }],
            ["cargo.build", { plugin }],
          ] as const
        ) {
          const r = await h.call(method, params);
          assert.equal(
            r.error?.code,
            -32602,
            `${method} ${JSON.stringify(plugin)}: ${JSON.stringify(r)}`,
          );
          assert.match(r.error!.message, /reserved for the core|plugin names are 1 to 64/);
        }
      }
      assert.deepEqual(await h.result("probe.noop"), {}, "probe was not replaced");
    } finally {
      await h.close();
    }
  },
);
