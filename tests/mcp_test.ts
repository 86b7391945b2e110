/**
 * `sausage mcp`, driven by the official MCP SDK's own client: over stdio
 * against the example world's plugins (built from `examples/`), with a host
 * that the session starts or one that already runs, and over Streamable
 * HTTP with the world's token.
 */

import { strict as assert } from "node:assert";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { ControlServer } from "../core/control/control_server.ts";
import type { Entry } from "../core/journal/journal.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { ifaceVersion } from "./helpers/iface.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** The example world's plugins, built from `examples/`, and the MCP test probe. */
const plugins: Record<string, string> = Object.fromEntries(
  await Promise.all([
    ...["notes", "www", "secrets", "consumer"].map(async (name) =>
      [name, await cachedBuild(`${ROOT}/examples/${name}`, "examples", name)] as const
    ),
    (async () =>
      [
        "hello",
        await cachedBuild(`${ROOT}/examples/world/plugins/hello/source`, "examples", "hello"),
      ] as const)(),
    (async () => ["mcpprobe", await builtTestPlugin("mcpprobe")] as const)(),
  ]),
);

/** A new `hello` whose document has a method the old one lacks (`wave`). */
const hello2 = await ifaceVersion({
  openrpc: "1.2.6",
  info: { title: "hello", version: "2" },
  methods: [{
    name: "wave",
    summary: "Wave back.",
    paramStructure: "by-name",
    params: [{ name: "to", required: true, description: "Who.", schema: { type: "string" } }],
    // iface answers a method other than rpc.discover with its params.
    result: { name: "waved", schema: { $ref: "#/components/schemas/Waved" } },
  }],
  components: {
    schemas: {
      Waved: {
        type: "object",
        description: "The params, back.",
        properties: { to: { type: "string" } },
        required: ["to"],
      },
    },
  },
});

/**
 * An MCP client session with `sausage mcp <world> [args]`, its stderr, and
 * every message the client received, in order (`wire`).
 */
async function connect(world: string, ...args: string[]) {
  const transport = new StdioClientTransport({
    command: `${ROOT}/sausage`,
    args: ["mcp", world, ...args],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
  const client = new Client({ name: "sausage-test", version: "1.0.0" });
  await client.connect(transport);
  const wire: { method?: string; params?: Record<string, unknown>; result?: unknown }[] = [];
  const handle = transport.onmessage!;
  transport.onmessage = (msg) => {
    wire.push(msg as (typeof wire)[number]);
    handle(msg);
  };
  return { client, stderr: () => stderr, wire };
}

/** What a {@link sessionTest} gets: its world, and an MCP session on it (see {@link connect}). */
type Session = Awaited<ReturnType<typeof connect>> & { world: string };

/**
 * A test with an MCP session on a fresh world with `plugins` (`before`
 * prepares the world first); the session and the world go at the end.
 */
function sessionTest(name: string, fn: (s: Session) => Promise<void>): void;
function sessionTest(
  name: string,
  before: (world: string) => Promise<void>,
  fn: (s: Session) => Promise<void>,
): void;
function sessionTest(
  name: string,
  ...args: [(s: Session) => Promise<void>] | [
    (world: string) => Promise<void>,
    (s: Session) => Promise<void>,
  ]
): void {
  const [before, fn] = args.length === 1 ? [undefined, args[0]] : args;
  Deno.test(name, opts, async () => {
    const world = await makeWorld({ plugins });
    await before?.(world);
    const session = await connect(world);
    try {
      await fn({ ...session, world });
    } finally {
      await session.client.close();
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
  });
}

/** Runs `sausage <args>`; resolves with its exit code and output. */
async function sausage(...args: string[]) {
  const out = await new Deno.Command(`${ROOT}/sausage`, { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** The texts of a tool result. */
function texts(r: CallToolResult): string[] {
  return r.content.map((c) => (c.type === "text" ? c.text : ""));
}

/** The text of a resource, and its MIME type. */
async function readText(client: Client, uri: string): Promise<{ text: string; mimeType?: string }> {
  const c = (await client.readResource({ uri })).contents[0] as { text: string; mimeType?: string };
  return c;
}

function ajv() {
  const a = new Ajv2020({ strict: false, allErrors: true, logger: false });
  formatsModule.default(a);
  return a;
}

Deno.test(
  "sausage mcp over stdio: the example world's methods are tools that ajv accepts; notes_add adds a note that notes.list shows; bad params are an isError result; resources read",
  opts,
  async () => {
    const world = await makeWorld({ plugins });
    const { client, stderr } = await connect(world);
    try {
      const { tools } = await client.listTools();
      const byName = new Map<string, Tool>(tools.map((t) => [t.name, t]));

      // One tool per method of every plugin that has a document.
      const graph = JSON.parse(
        (await readText(client, "sausage:///proc/core/graph.json")).text,
      ) as { plugins: { name: string; methods: string[] }[] };
      const expected = graph.plugins.flatMap((p) => p.methods.map((m) => `${p.name}_${m}`));
      assert.ok(expected.length >= 10, `the example world has methods: ${expected}`);
      assert.deepEqual([...byName.keys()].sort(), expected.sort());
      for (const name of ["notes_add", "notes_list", "www_start", "consumer_note", "secrets_get"]) {
        assert.ok(byName.has(name), `${name} is a tool`);
      }
      const add = byName.get("notes_add")!;
      assert.equal(add.title, "notes.add");
      assert.match(add.description!, /^Add a note at the end of the list\.\n\nReturns the number/);
      assert.deepEqual(add._meta, { "sausage/method": "notes.add" });

      // Every schema is a JSON Schema object that ajv compiles, with its $refs resolved.
      const a = ajv();
      for (const t of tools) {
        for (const schema of [t.inputSchema, t.outputSchema]) {
          if (!schema) continue;
          assert.equal(schema.type, "object", `${t.name}: an object schema`);
          assert.ok(a.validateSchema(schema), `${t.name}: ${a.errorsText(a.errors)}`);
          a.compile(schema);
        }
      }
      const input = a.compile(add.inputSchema);
      assert.ok(input({ text: "milk" }));
      assert.ok(!input({}), "text is required");
      assert.ok(!input({ text: 3 }));

      // A call is a call through the core; its result is structured content and JSON text.
      const added = await client.callTool({ name: "notes_add", arguments: { text: "milk" } });
      assert.deepEqual(added.structuredContent, { count: 1 });
      assert.deepEqual(texts(added as CallToolResult), ['{"count":1}']);
      assert.ok(a.compile(add.outputSchema!)(added.structuredContent));
      const listed = await client.callTool({ name: "notes_list", arguments: {} });
      assert.deepEqual(listed.structuredContent, { result: ["milk"] }, "a list is wrapped");
      const cli = await sausage("call", world, "notes.list");
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual(JSON.parse(cli.stdout), ["milk"], "the session's host answers the CLI");

      // The journal shows the call, with the parent mcp.
      const log = await sausage("log", world, "notes", "--json");
      const starts = (JSON.parse(log.stdout) as Entry[])
        .map((e) => (e.stream === "core" ? JSON.parse(e.line) : {}))
        .filter((l) => l.event === "start" && l.method === "add");
      assert.deepEqual(starts.map((s) => [s.parent, s.params]), [["mcp", { text: "milk" }]]);

      // A JSON-RPC error is a tool result with isError, its message and data.
      const bad = await client.callTool({ name: "notes_add", arguments: { txt: "milk" } });
      assert.equal(bad.isError, true);
      const [message, error] = texts(bad as CallToolResult);
      assert.match(message, /invalid params.*text/);
      assert.equal(JSON.parse(error).code, -32602);
      const failed = await client.callTool({ name: "mcpprobe_fail", arguments: { why: "x" } });
      assert.equal(failed.isError, true);
      assert.deepEqual(JSON.parse(texts(failed as CallToolResult)[1]), {
        code: -32042,
        message: "asked to fail",
        data: { why: "x" },
      });

      // Resources: the contract, and each plugin's documents.
      const { resources } = await client.listResources();
      const uris = resources.map((r) => r.uri);
      for (
        const uri of [
          "sausage:///proc/core/PROTOCOL.md",
          "sausage:///proc/core/graph.json",
          "sausage:///proc/core/plugins/notes/discover.json",
          "sausage:///proc/core/plugins/notes/client.rs",
          "sausage:///proc/core/plugins/notes/client.ts",
        ]
      ) assert.ok(uris.includes(uri), uri);
      const protocol = await readText(client, "sausage:///proc/core/PROTOCOL.md");
      assert.equal(protocol.mimeType, "text/markdown");
      assert.equal(
        protocol.text,
        await Deno.readTextFile(`${ROOT}/PROTOCOL.md`),
      );
      const discover = await readText(client, "sausage:///proc/core/plugins/notes/discover.json");
      assert.equal(JSON.parse(discover.text).info.title, "notes");
      // client.rs runs the codegen plugin (built from sdk/ on first use: allow for the build).
      const rust = await client.readResource(
        { uri: "sausage:///proc/core/plugins/notes/client.rs" },
        { timeout: 600_000 },
      );
      assert.match((rust.contents[0] as { text: string }).text, /pub\(crate\) fn add\(/);
      await assert.rejects(client.readResource({ uri: "sausage:///state/core/journal.sqlite" }));
    } finally {
      await client.close();
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
    assert.match(stderr(), /started a host/);
  },
);

sessionTest(
  "sausage mcp sends tools/list_changed after core.activate of a plugin with a new method, and the new tool works",
  async (world) => {
    await Deno.mkdir(`${world}/state/builds`, { recursive: true });
    await Deno.copyFile(hello2, `${world}/state/builds/hello2.wasm`);
  },
  async ({ world, client }) => {
    const before = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!before.includes("hello_wave"));
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const activated = await sausage(
      "call",
      world,
      "core.activate",
      JSON.stringify({ plugin: "hello", wasm: "/state/builds/hello2.wasm" }),
    );
    assert.equal(activated.code, 0, activated.stderr);
    await eventually(() => changed > 0, "notifications/tools/list_changed", 10_000);
    const after = (await client.listTools()).tools;
    const wave = after.find((t) => t.name === "hello_wave");
    assert.ok(wave, "hello_wave is a tool now");
    assert.deepEqual(wave.outputSchema, {
      type: "object",
      description: "The params, back.",
      properties: { to: { type: "string" } },
      required: ["to"],
    });
    const waved = await client.callTool({ name: "hello_wave", arguments: { to: "Ada" } });
    assert.deepEqual(waved.structuredContent, { to: "Ada" });

    // A copy by hand (here: the old version back) changes the list again, and says so.
    const n = changed;
    await Deno.copyFile(plugins.hello, `${world}/plugins/hello/plugin.wasm`);
    await eventually(() => changed > n, "a second tools/list_changed", 10_000);
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === "hello_wave"));
  },
);

sessionTest(
  "sausage mcp: core.notify becomes progress or logging; a cancelled call's process is stopped; calls show in ps as mcp",
  async ({ world, client, wire }) => {
    // The server sends each notification before the answer. (The SDK's client
    // can still drop some: it handles a response read in the same chunk first.)
    const done = await client.callTool(
      { name: "mcpprobe_progress", arguments: { count: 3 } },
      undefined,
      { onprogress: () => {} },
    );
    assert.deepEqual(done.structuredContent, { sent: 3 });
    const answer = wire.findIndex((m) =>
      (m.result as CallToolResult | undefined)?.structuredContent?.sent === 3
    );
    assert.ok(answer > 0);
    const progress = wire.slice(0, answer)
      .filter((m) => m.method === "notifications/progress")
      .map((m) => [m.params!.progress, m.params!.message]);
    assert.deepEqual(progress, [[1, "step 0"], [2, "step 1"], [3, "step 2"]]);
    const logged: unknown[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logged.push(n.params),
    );
    await client.callTool({ name: "mcpprobe_progress", arguments: { count: 1 } });
    await eventually(() => logged.length === 1, "a logging notification");
    assert.deepEqual(logged[0], {
      level: "info",
      logger: "mcpprobe",
      data: { name: "progress", params: { line: "step 0" } },
    });

    const abort = new AbortController();
    const waiting = client.callTool({ name: "mcpprobe_wait", arguments: {} }, undefined, {
      signal: abort.signal,
    });
    waiting.catch(() => {});
    const ps = async () =>
      JSON.parse((await sausage("ps", world, "--json")).stdout) as {
        pid: string;
        method: string;
        parent: string;
      }[];
    const running = await eventually(
      async () => (await ps()).find((p) => p.method === "wait"),
      "the waiting process in sausage ps",
      10_000,
    );
    assert.equal(running.parent, "mcp");
    const info = await sausage("cat", world, `/proc/${running.pid}/info.json`);
    assert.equal(JSON.parse(info.stdout).parent, "mcp");
    abort.abort();
    await assert.rejects(waiting);
    await eventually(
      async () => !(await ps()).some((p) => p.pid === running.pid),
      "the cancelled process to end",
      10_000,
    );
    const log = JSON.parse(
      (await sausage("log", world, running.pid, "--json")).stdout,
    ) as Entry[];
    const lines = log.map((e) => e.line);
    assert.ok(lines.includes('{"event":"stop"}'), lines.join("\n"));
    assert.ok(lines.includes("stdin closed"), "core.stop closed its stdin");
  },
);

Deno.test(
  "sausage mcp uses the running host and leaves it running; config/mcp.json leaves methods out; when that host stops, the session starts its own",
  opts,
  async () => {
    const h = await TestHost.start({
      plugins,
      files: { "config/mcp.json": JSON.stringify({ exclude: ["secrets.*", "consumer.*"] }) },
    });
    const control = await ControlServer.start(h.host);
    const first = await connect(h.root);
    try {
      const names = (await first.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("notes_add"));
      assert.ok(!names.some((n) => n.startsWith("secrets_") || n.startsWith("consumer_")));
      const added = await first.client.callTool({ name: "notes_add", arguments: { text: "tea" } });
      assert.deepEqual(added.structuredContent, { count: 1 });
      const log = await h.result<Entry[]>("core.log", { plugin: "notes" });
      const start = log.map((e) => JSON.parse(e.line))
        .find((l) => l.event === "start" && l.method === "add");
      assert.equal(start.parent, "mcp");
      assert.deepEqual(await h.result("notes.list"), ["tea"]);

      // A config that is not valid fails the list instead of showing everything.
      await Deno.writeTextFile(`${h.root}/config/mcp.json`, '{"exclude": "secrets.*"}');
      await assert.rejects(first.client.listTools(), /"exclude" must be a list/);
    } finally {
      await first.client.close();
    }
    assert.ok(!/started a host/.test(first.stderr()));
    assert.deepEqual(await h.result("notes.list"), ["tea"], "the host still runs");

    await Deno.remove(`${h.root}/config/mcp.json`);
    const second = await connect(h.root);
    try {
      control.close();
      await h.host.shutdown(200);
      const listed = await second.client.callTool({ name: "notes_list", arguments: {} });
      assert.deepEqual(listed.structuredContent, { result: ["tea"] });
      assert.match(second.stderr(), /started a host/);
    } finally {
      await second.client.close();
      await Deno.remove(h.root, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test(
  "sausage mcp --http: no request without the world's token; with it the SDK client lists and calls",
  opts,
  async () => {
    const world = await makeWorld({ plugins });
    const server = new Deno.Command(`${ROOT}/sausage`, {
      args: ["mcp", world, "--http", "0"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let err = "";
    const banner = await eventually(
      async () => {
        const { value } = await reader.read();
        err += value ?? "";
        return /(http:\/\/127\.0\.0\.1:\d+\/mcp).*token is in (\S+)/.exec(err);
      },
      "the server's address",
      30_000,
    );
    (async () => {
      while (!(await reader.read()).done) { /* drain */ }
    })();
    const [, url, tokenFile] = banner;
    const token = (await Deno.readTextFile(tokenFile)).trim();
    assert.equal((await Deno.stat(tokenFile)).mode! & 0o077, 0, "only the owner reads the token");
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      },
    });
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: init,
      }).then(async (r) => (await r.body?.cancel(), r.status));
    assert.equal(await post({}), 401);
    assert.equal(await post({ authorization: "Bearer wrong" }), 401);
    assert.equal(
      await post({ authorization: `Bearer ${token}`, origin: "https://evil.example" }),
      403,
    );

    const client = new Client({ name: "sausage-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("notes_add"));
      const added = await client.callTool({ name: "notes_add", arguments: { text: "http" } });
      assert.deepEqual(added.structuredContent, { count: 1 });
    } finally {
      await client.close();
      server.kill("SIGTERM");
      assert.equal((await server.status).code, 0);
      await Deno.remove(world, { recursive: true }).catch(() => {});
    }
  },
);
