/**
 * One MCP session's server: the official SDK's low-level `Server` with the
 * world's tools (`tools/list`, `tools/call`), resources
 * (`resources/list`, `resources/read`) and list-change notifications. Every
 * session of `sausage mcp` (the one stdio session, or each Streamable HTTP
 * session) gets its own, over one shared `WorldTools`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { callTool } from "./tool_call.ts";
import { mcpRequestKey } from "./request_key.ts";
import { listResources, readResource } from "./resources.ts";
import type { WorldTools } from "./world_tools.ts";

/** The version this server reports. */
const SERVER_VERSION = "0.1.0";

/** Makes a server for one session; it stops listening for changes when it closes. */
export function createServer(tools: WorldTools, worldName: string): Server {
  // This session's part of its tool calls' request keys (`request_key.ts`).
  const session = crypto.randomUUID();
  const server = new Server(
    { name: `sausage ${worldName}`, version: SERVER_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        logging: {},
      },
      instructions: `The Sausage world ${worldName}: each tool calls one method of a plugin ` +
        `(the tool's title, e.g. notes.add). Read sausage:///proc/core/PROTOCOL.md for how ` +
        `the world works, and each plugin's discover.json for its interface.`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const list = await tools.load().catch(fail);
    return { tools: [...list.byName.values()].map((e) => e.tool) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const list = await tools.current().catch(fail);
    let entry = list.byName.get(req.params.name);
    // A tool the client knows from a newer list than ours (a change not seen yet).
    if (!entry) entry = (await tools.load().catch(fail)).byName.get(req.params.name);
    if (!entry) {
      throw protocolError(
        McpErrorCode.InvalidParams,
        `no tool ${req.params.name} in this world; list the tools again`,
      );
    }
    const key = mcpRequestKey(session, extra.requestId);
    return await callTool(tools.link, entry, req.params.arguments ?? {}, extra, key);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const list = await tools.current().catch(fail);
    return { resources: listResources(list.plugins) };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    try {
      return await readResource(tools.link, req.params.uri);
    } catch (e) {
      throw protocolError(McpErrorCode.InvalidParams, e instanceof Error ? e.message : String(e));
    }
  });
  const stop = tools.onChange((change) => {
    if (change.tools) server.sendToolListChanged().catch(() => {});
    if (change.plugins) server.sendResourceListChanged().catch(() => {});
  });
  server.onclose = stop;
  return server;
}

/** Turns a failure to read the world into an MCP error with its message. */
function fail(e: unknown): never {
  throw protocolError(McpErrorCode.InternalError, e instanceof Error ? e.message : String(e));
}

/**
 * A protocol error the SDK answers with `code` and `message` as they are.
 * Not the SDK's `McpError`: its message starts "MCP error <code>: ", which
 * the client's own `McpError` prefixes again ("MCP error -32602: MCP error
 * -32602: …").
 */
function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
