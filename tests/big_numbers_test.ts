/**
 * Integers beyond 2^53 kept exactly (issue 23, item 2; PROTOCOL 4.1
 * "Numbers"): through `sausage call` (a transient host, and a running host's
 * control socket), a nested call, the sandbox pipe both ways, the journal,
 * and a Rust plugin consuming another's `u64::MAX` through its generated
 * client. Real hosts, real components, real subprocesses.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { hostTests, TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { launcher, sausage } from "./helpers/cli.ts";
import { mcpHttpSession, mcpInitialize, mcpStdioSession } from "./helpers/mcp.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { parseExact } from "../rpc/exact_json.ts";

const probe = await builtTestPlugin("probe");
const bigsource = await builtTestPlugin("bigsource");
const bigsink = await builtTestPlugin("bigsink");
const opts = { sanitizeOps: false, sanitizeResources: false };

const U64_MAX = "18446744073709551615";
const I64_MIN = "-9223372036854775808";
/** Params whose numbers a double would change (serde_json, without arbitrary_precision, keeps 64-bit ones), and one it would not. */
const PARAMS =
  `{"n":${U64_MAX},"m":${I64_MIN},"list":[9223372036854775807,9007199254740993],"f":1.5}`;

/** The JSON text of `v` with sorted keys (the probe's serde_json sorts them). */
function sorted(text: string): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : typeof v === "object" && v !== null && !("rawJSON" in v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as never)[k])]))
      : v;
  return JSON.stringify(sort(parseExact(text)));
}

Deno.test({
  name: "sausage call: a transient host gives big integers back exactly, direct and nested",
  ...opts,
  async fn() {
    const root = await makeWorld({ plugins: { probe } });
    try {
      const direct = await sausage("call", root, "probe.echo", PARAMS);
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(direct.stdout.trim(), sorted(PARAMS));
      const nested = await sausage(
        "call",
        root,
        "probe.call",
        `{"method":"probe.echo","params":${PARAMS}}`,
      );
      assert.equal(nested.code, 0, nested.stderr);
      assert.equal(parseExactResult(nested.stdout), sorted(PARAMS));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** The `result` of the nested response that `probe.call` answers, as sorted JSON text. */
function parseExactResult(stdout: string): string {
  const r = parseExact(stdout) as { result: unknown };
  return JSON.stringify(r.result);
}

Deno.test({
  name: "sausage call through a running host's control socket: exact, and the journal too",
  ...opts,
  async fn() {
    const h = await TestHost.start({ plugins: { probe } });
    const control = await ControlServer.start(h.host);
    try {
      const direct = await sausage("call", h.root, "probe.echo", PARAMS);
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(direct.stdout.trim(), sorted(PARAMS));
      const nested = await sausage(
        "call",
        h.root,
        "probe.call",
        `{"method":"probe.echo","params":${PARAMS}}`,
      );
      assert.equal(nested.code, 0, nested.stderr);
      assert.equal(parseExactResult(nested.stdout), sorted(PARAMS));

      // The journal's start events hold the params as they came (outer and nested).
      h.host.journal.flush();
      const starts = h.host.journal.query({ grep: '"method":"echo"', limit: 10 });
      assert.ok(starts.length >= 2, JSON.stringify(starts));
      for (const e of starts) {
        assert.ok(e.line.includes(`"n":${U64_MAX}`), e.line);
        assert.ok(e.line.includes(`"m":${I64_MIN}`), e.line);
        assert.ok(e.line.includes("[9223372036854775807,9007199254740993]"), e.line);
      }
      // `sausage log --json` prints them exactly too.
      const log = await sausage("log", h.root, "--json", "-n", "200");
      assert.equal(log.code, 0, log.stderr);
      assert.ok(log.stdout.includes(`\\"n\\":${U64_MAX}`), log.stdout.slice(0, 2000));
    } finally {
      await control.close();
      await h.close();
    }
  },
});

const test = hostTests({ plugins: { bigsource, bigsink } });

test("a Rust plugin consumes another's u64::MAX and i64::MIN through its generated client", async (h) => {
  const r = await h.call("bigsink.relay");
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(
    JSON.stringify(r.result),
    `{"checked":true,"max":${U64_MAX},"max_text":"${U64_MAX}","min":${I64_MIN}}`,
  );
  // The host's own caller sees it exactly too.
  assert.equal(JSON.stringify((await h.call("bigsource.max")).result), U64_MAX);
});

test("bigsink's imports/bigsource.json is bigsource's current rpc.discover", async (h) => {
  const file = new URL("./plugins/bigsink/imports/bigsource.json", import.meta.url);
  assert.equal(
    JSON.stringify(parseExact(await Deno.readTextFile(file))),
    JSON.stringify((await h.call("bigsource.rpc.discover")).result),
  );
});

Deno.test({
  name: "sausage mcp over stdio: a tool's big integer arguments reach the plugin exactly",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { bigsource } });
  const s = mcpStdioSession(launcher, world, { parse: parseExact });
  try {
    await s.send(JSON.stringify(mcpInitialize(1)));
    assert.ok((await s.answer(1)).result);
    await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // Written by hand: JSON.stringify of a number would round it before it left.
    await s.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call",` +
        `"params":{"name":"bigsource_check","arguments":{"n":${U64_MAX}}}}`,
    );
    const r = await s.answer(2) as { result?: { content: { text: string }[] } };
    assert.equal(r.result?.content[0].text, "true", JSON.stringify(r));
  } finally {
    await s.close();
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name: "sausage mcp --http: big integer arguments reach the plugin exactly, results come back so",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { bigsource } });
  // Bodies written by hand: JSON.stringify of a number would round it before it left.
  const { post, close } = await mcpHttpSession(launcher, world, parseExact);
  try {
    const [init] = await post(JSON.stringify(mcpInitialize(1)));
    assert.ok(init.result, JSON.stringify(init));
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    const tool = (id: number, name: string, args: string) =>
      post(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call",` +
          `"params":{"name":"${name}","arguments":${args}}}`,
      ).then((ms) => ms.find((m) => m.id === id) as { result?: { content: { text: string }[] } });
    // Before: the SDK's JSON.parse made u64::MAX 18446744073709552000, and bigsource said false.
    const checked = await tool(2, "bigsource_check", `{"n":${U64_MAX}}`);
    assert.equal(checked.result?.content[0].text, "true", JSON.stringify(checked));
    const max = await tool(3, "bigsource_max", "{}");
    assert.equal(max.result?.content[0].text, U64_MAX, JSON.stringify(max));
  } finally {
    await close();
  }
});
