/**
 * `sausage mcp` as a person reads it (issue 40): a protocol error's text
 * once (the SDK's client prefixes "MCP error <code>: " itself), and a call
 * that the end of a short session cancelled journaled as ended, not left
 * `running`.
 */

import { strict as assert } from "node:assert";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Entry } from "../core/journal/journal.ts";
import { mcpInitialize, mcpStdioSession } from "./helpers/mcp.ts";
import { eventually } from "./helpers/host.ts";
import { start, waitFor } from "./helpers/author.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { sausage } from "./helpers/cli.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const opts = { sanitizeOps: false, sanitizeResources: false };
const mcpprobe = await builtTestPlugin("mcpprobe");

/** An MCP client on `sausage mcp <world>` over stdio, and the server's process id. */
async function connect(world: string) {
  const transport = new StdioClientTransport({
    command: `${ROOT}/sausage`,
    args: ["mcp", world],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  const client = new Client({ name: "sausage-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

Deno.test({ name: "mcp: a protocol error's text once", ...opts }, async () => {
  const world = await makeWorld({ plugins: { mcpprobe } });
  const { client } = await connect(world);
  try {
    const e = await client.callTool({ name: "nosuch_tool", arguments: {} }).then(
      () => assert.fail("an unknown tool is an error"),
      (e: Error) => e,
    );
    assert.equal(
      e.message,
      "MCP error -32602: no tool nosuch_tool in this world; list the tools again",
    );
  } finally {
    await client.close();
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});

for (const running of [false, true]) {
  Deno.test({
    name: "mcp: a call cancelled by the end of a short session is journaled as ended" +
      (running ? " (a running host)" : " (the session's own host)"),
    ...opts,
  }, async () => {
    const world = await makeWorld({ plugins: { mcpprobe } });
    const run = running ? start("run", world, "--headless") : undefined;
    try {
      if (run) await waitFor(run.stderr, /sausage: running /);
      // A session that sends its call and ends at once (a script piping a few lines).
      const s = mcpStdioSession(`${ROOT}/sausage`, world);
      await s.send(JSON.stringify(mcpInitialize(1)));
      await s.answer(1);
      await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      await s.send(JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "mcpprobe_wait", arguments: {} },
      }));
      await eventually(
        async () => /wait/.test((await sausage("ps", world)).stdout),
        "the call to run",
        60_000,
      );
      await s.close();
      const all = JSON.parse(
        (await sausage("log", world, "mcpprobe", "--json", "--all", "-n", "1000")).stdout,
      ) as Entry[];
      const waits = [...new Set(all.map((e) => e.pid))].filter((pid) =>
        all.some((e) => e.pid === pid && /"method":"wait"|wait/.test(e.line))
      );
      const log = await sausage("log", world, "mcpprobe", "--all");
      assert.doesNotMatch(log.stdout, / running$/m, log.stdout);
      for (const pid of waits) {
        const lines = all.filter((e) => e.pid === pid).map((e) => e.line);
        assert.ok(lines.some((l) => /"event":"exit"/.test(l)), lines.join("\n"));
      }
    } finally {
      run?.child.kill("SIGINT");
      await run?.child.status;
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
  });
}
