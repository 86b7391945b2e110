/**
 * `sausage mcp` over stdio, at the level of its lines (`mcp/stdio_transport.ts`,
 * `mcp/argument_guard.ts`): a 20 MB line is answered at once with its size
 * and the limit, and the session goes on; `tools/call` with `arguments` that
 * are not an object gets -32602 with a one-line reason.
 */

import { strict as assert } from "node:assert";
import { launcher } from "./helpers/cli.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { mcpStdioSession } from "./helpers/mcp.ts";

const mcpprobe = await builtTestPlugin("mcpprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name:
    "mcp stdio: a 20 MB line is answered at once and the session goes on; bad arguments get -32602",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { mcpprobe } });
  const s = mcpStdioSession(launcher, world, { stderr: "piped" });
  try {
    await s.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }));
    assert.ok((await s.answer(1)).result, "initialized");
    await s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');

    // The SDK's clients put the id last: it is found at the line's end.
    const big = "a".repeat(20 * 2 ** 20);
    const line = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"mcpprobe_echo",` +
      `"arguments":{"big":"${big}"}},"id":7}`;
    const began = performance.now();
    await s.send(line);
    const tooLong = await s.answer(7);
    const ms = performance.now() - began;
    const error = tooLong.error as { code: number; message: string };
    assert.equal(error.code, -32600);
    assert.match(
      error.message,
      new RegExp(
        `a message of ${line.length} bytes was not read: the limit is 16777216 bytes \\("line_mib"`,
      ),
    );
    // Before: no answer at all (the SDK transport closed after minutes). Now the time to
    // carry 20 MB through a pipe: seconds, more on a loaded machine.
    assert.ok(ms < 60_000, `answered in ${Math.round(ms)} ms`);
    console.log(`mcp-stdio: 20 MB line answered in ${Math.round(ms)} ms`);

    for (
      const [id, args, kind] of [[8, [1, 2], "an array"], [9, "text", "a string"], [
        10,
        null,
        "null",
      ]] as const
    ) {
      await s.send(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "mcpprobe_echo", arguments: args },
      }));
      const bad = (await s.answer(id)).error as { code: number; message: string };
      assert.equal(bad.code, -32602, JSON.stringify(bad));
      assert.equal(
        bad.message,
        `"arguments" of tools/call must be a JSON object of the tool's parameters, not ${kind}`,
      );
    }
    await s.send('{"jsonrpc":"2.0","id":11,"method":"ping"}');
    assert.deepEqual((await s.answer(11)).result, {}, "the session goes on");
    await s.send("not json");
    assert.equal(((await s.answer(null)).error as { code: number }).code, -32700);
  } finally {
    const status = await s.close();
    await s.child.stderr.cancel().catch(() => {});
    assert.equal(status.code, 0, "stdin's end ends the session");
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});
