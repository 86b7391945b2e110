/**
 * Numbers and text pass exactly (issue 36, item 4; PROTOCOL 4.1): every
 * number's text (long decimals, exponents a double cannot hold, `-0`, `1.0`)
 * reaches the callee and the journal as sent and comes back so, through
 * `sausage call` (a transient host, and a running host's control socket), a
 * nested call, `sausage log`, and MCP over stdio and HTTP; a request that is
 * not UTF-8 is refused with -32700 and the bad byte's offset, and one nested
 * past 512 levels with -32600 naming the limit. Real hosts, real components
 * (`probe` and `mcpprobe` keep numbers as text: serde_json's
 * `arbitrary_precision`), real subprocesses.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { launcher, sausage } from "./helpers/cli.ts";
import { mcpHttpSession, mcpInitialize, mcpStdioSession } from "./helpers/mcp.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { parseExact } from "../rpc/exact_json.ts";

const probe = await builtTestPlugin("probe");
const mcpprobe = await builtTestPlugin("mcpprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

/**
 * Numbers a double would change, each as sent. (`-0` itself the probe's
 * serde_json reads as the integer 0; the journal shows the host passes it.)
 */
const NUMBERS = {
  decimal: "0.1000000000000000055511151231257827",
  huge: "1e400",
  tiny: "-1e-400",
  negzero: "-0.0",
  one: "1.0",
  upper: "1E2",
};
/** Params holding them (keys in sorted order: the probe's serde_json sorts them). */
const PARAMS = `{${
  Object.entries(NUMBERS).sort(([a], [b]) => a < b ? -1 : 1)
    .map(([k, v]) => `"${k}":${v}`).join(",")
},"list":[${Object.values(NUMBERS).join(",")}]}`;
/** What the probe gives back: the same text, keys sorted. */
const SORTED = `{${
  [...Object.entries(NUMBERS), ["list", `[${Object.values(NUMBERS).join(",")}]`]]
    .sort(([a], [b]) => a < b ? -1 : 1).map(([k, v]) => `"${k}":${v}`).join(",")
}}`;

/** The `result` of the nested response that `probe.call` answers, as JSON text. */
function nestedResult(stdout: string): string {
  return JSON.stringify((parseExact(stdout) as { result: unknown }).result);
}

Deno.test({
  name:
    "sausage call: a transient host passes decimals, exponents and -0 as sent, direct and nested",
  ...opts,
  async fn() {
    const root = await makeWorld({ plugins: { probe } });
    try {
      const direct = await sausage("call", root, "probe.echo", PARAMS);
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(direct.stdout.trim(), SORTED);
      const nested = await sausage(
        "call",
        root,
        "probe.call",
        `{"method":"probe.echo","params":${PARAMS}}`,
      );
      assert.equal(nested.code, 0, nested.stderr);
      assert.equal(nestedResult(nested.stdout), SORTED);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** Sends `bytes` on a new connection after `$/hello`; resolves with the answer lines to ids other than the hello's. */
async function rawControl(path: string, bytes: Uint8Array, answers: number): Promise<string[]> {
  const conn = await Deno.connect({ transport: "unix", path });
  const enc = new TextEncoder();
  await conn.write(enc.encode('{"jsonrpc":"2.0","id":"hi","method":"$/hello","params":{}}\n'));
  await conn.write(bytes);
  let text = "";
  const buf = new Uint8Array(65536);
  const lines = () => text.split("\n").filter((l) => l !== "" && !l.includes('"id":"hi"'));
  while (lines().length < answers) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return lines();
}

Deno.test({
  name: "a running host's control socket: numbers as sent, in the journal and `sausage log` too; " +
    "bad UTF-8 and deep nesting refused by name",
  ...opts,
  async fn() {
    const h = await TestHost.start({ plugins: { probe } });
    const control = await ControlServer.start(h.host);
    try {
      const direct = await sausage("call", h.root, "probe.echo", PARAMS);
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(direct.stdout.trim(), SORTED);
      const nested = await sausage(
        "call",
        h.root,
        "probe.call",
        `{"method":"probe.echo","params":${PARAMS}}`,
      );
      assert.equal(nested.code, 0, nested.stderr);
      assert.equal(nestedResult(nested.stdout), SORTED);

      // The journal's start events hold the params as they came (outer and nested).
      h.host.journal.flush();
      const starts = h.host.journal.query({ grep: '"method":"echo"', limit: 10 });
      assert.ok(starts.length >= 2, JSON.stringify(starts));
      for (const e of starts) {
        for (const [k, v] of Object.entries(NUMBERS)) {
          assert.ok(e.line.includes(`"${k}":${v}`), e.line);
        }
      }
      // -0 is passed as -0 (the journal's line is the request the probe got).
      assert.equal((await sausage("call", h.root, "probe.echo", '{"mark":"z","z":-0}')).code, 0);
      h.host.journal.flush();
      const [z] = h.host.journal.query({ grep: '"mark":"z"', limit: 1 });
      assert.ok(z?.line.includes('"z":-0}'), z?.line);
      // `sausage log --json` prints them as sent too (the text form shows no params).
      const json = await sausage("log", h.root, "--json", "-n", "200");
      assert.equal(json.code, 0, json.stderr);
      for (const [k, v] of Object.entries(NUMBERS)) {
        assert.ok(json.stdout.includes(`\\"${k}\\":${v}`), `${k}: ${json.stdout.slice(0, 3000)}`);
      }

      // Not UTF-8: -32700 under the request's id, with the offset of the bad byte.
      const head = '{"jsonrpc":"2.0","id":7,"method":"probe.echo","params":{"s":"a';
      const enc = new TextEncoder();
      const bad = new Uint8Array([...enc.encode(head), 0xff, ...enc.encode('b"}}\n')]);
      const [notUtf8] = await rawControl(control.path, bad, 1);
      const r = JSON.parse(notUtf8);
      assert.equal(r.id, 7, notUtf8);
      assert.equal(r.error.code, -32700, notUtf8);
      assert.equal(r.error.data.offset, head.length, notUtf8);
      assert.match(r.error.message, new RegExp(`offset ${head.length}\\b`));
      // A valid U+FFFD in a string is text like any other.
      const [kept] = await rawControl(
        control.path,
        enc.encode('{"jsonrpc":"2.0","id":8,"method":"probe.echo","params":{"s":"a\uFFFDb"}}\n'),
        1,
      );
      assert.deepEqual(JSON.parse(kept).result, { s: "a\uFFFDb" }, kept);

      // 10,000 levels: -32600 naming the limit (was -32603 "Maximum call stack size exceeded").
      const deep = `{"jsonrpc":"2.0","id":9,"method":"probe.echo","params":{"a":${
        "[".repeat(10_000) + "]".repeat(10_000)
      }}}\n`;
      const [tooDeep] = await rawControl(control.path, enc.encode(deep), 1);
      const d = JSON.parse(tooDeep);
      assert.equal(d.id, 9, tooDeep);
      assert.equal(d.error.code, -32600, tooDeep);
      assert.match(d.error.message, /deeper than 512 levels/);
      assert.deepEqual(d.error.data, { limit: "json_depth", value: 512 });
      // The host is still up and serves the next call.
      assert.equal((await sausage("call", h.root, "probe.echo", "{}")).stdout.trim(), "{}");
    } finally {
      await control.close();
      await h.close();
    }
  },
});

/** The echo tool's call, written by hand: JSON.stringify of a number would change it before it left. */
const echoCall = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call",` +
  `"params":{"name":"mcpprobe_echo","arguments":{"value":${PARAMS}}}}`;
/** The tool's answer text: the params as the plugin got them (keys sorted). */
const ECHOED = `{"value":${SORTED}}`;

Deno.test({
  name:
    "sausage mcp over stdio: a tool's numbers reach the plugin as sent; bad UTF-8 and deep nesting refused",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { mcpprobe } });
  const s = mcpStdioSession(launcher, world, { parse: parseExact });
  try {
    await s.send(JSON.stringify(mcpInitialize(1)));
    assert.ok((await s.answer(1)).result);
    await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await s.send(echoCall(2));
    const r = await s.answer(2) as { result?: { content: { text: string }[] } };
    assert.equal(r.result?.content[0].text, ECHOED, JSON.stringify(r));

    const enc = new TextEncoder();
    const head = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x\u00e9';
    await s.sendBytes(new Uint8Array([...enc.encode(head), 0xc3, 0x28, ...enc.encode('"}}\n')]));
    const bad = await s.answer(3) as { error?: { code: number; message: string } };
    assert.equal(bad.error?.code, -32700, JSON.stringify(bad));
    assert.match(bad.error!.message, new RegExp(`offset ${enc.encode(head).length}\\b`));

    await s.send(
      `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":${"[".repeat(600)}${
        "]".repeat(600)
      }}}`,
    );
    const deep = await s.answer(4) as { error?: { code: number; message: string } };
    assert.equal(deep.error?.code, -32600, JSON.stringify(deep));
    assert.match(deep.error!.message, /deeper than 512 levels/);
  } finally {
    await s.close();
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name:
    "sausage mcp --http: a tool's numbers reach the plugin as sent; a body not UTF-8 is refused with its offset",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { mcpprobe } });
  const { post, close } = await mcpHttpSession(launcher, world, parseExact);
  try {
    const [init] = await post(JSON.stringify(mcpInitialize(1)));
    assert.ok(init.result, JSON.stringify(init));
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const echoed = (await post(echoCall(2))).find((m) => m.id === 2) as {
      result?: { content: { text: string }[] };
    };
    assert.equal(echoed.result?.content[0].text, ECHOED, JSON.stringify(echoed));

    const head = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"';
    const enc = new TextEncoder();
    const [bad] = await post(
      new Uint8Array([...enc.encode(head), 0xe2, 0x82, ...enc.encode('"}}')]),
    );
    const e = bad.error as { code: number; message: string };
    assert.equal(e.code, -32700, JSON.stringify(bad));
    assert.match(e.message, new RegExp(`offset ${head.length}\\b`));
  } finally {
    await close();
  }
});
