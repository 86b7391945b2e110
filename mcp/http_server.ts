/**
 * `sausage mcp <world> --http <port>`: MCP's Streamable HTTP transport on
 * `http://127.0.0.1:<port>/mcp`, one SDK transport and server per session.
 * Nothing runs without the world's token (`http_token.ts`): a request
 * without `Authorization: Bearer <token>` gets 401 before it is read. A
 * `Host` other than `127.0.0.1:<port>` or `localhost:<port>` gets 403 (a web
 * page that rebinds its own name to 127.0.0.1 cannot send ours), and so does
 * a request with an `Origin` (browsers send one; MCP clients do not).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { authorized } from "./http_token.ts";
import { guardArguments } from "./argument_guard.ts";

/** The path the server answers on. */
export const MCP_HTTP_PATH = "/mcp";

/** Options of the HTTP server. */
export interface HttpOptions {
  /** The TCP port on 127.0.0.1 (0: any free port). */
  port: number;
  /** The token every request must carry. */
  token: string;
  /** Makes the server of a new session. */
  newServer: () => Server;
}

/** A running HTTP server. */
export interface HttpServer {
  /** The port it listens on. */
  port: number;
  /** Stops it and closes every session. */
  close(): Promise<void>;
}

function refuse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}

/** Starts the server. */
export function serveHttp(opts: HttpOptions): Promise<HttpServer> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let port = opts.port;
  const handle = async (req: Request): Promise<Response> => {
    if (!authorized(req.headers.get("authorization"), opts.token)) {
      return refuse(401, "send the world's token: Authorization: Bearer <token>", {
        "www-authenticate": 'Bearer realm="sausage"',
      });
    }
    const host = req.headers.get("host") ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return refuse(403, `Host ${host} is not this server`);
    }
    if (req.headers.get("origin") !== null) {
      return refuse(403, "requests from web pages are refused");
    }
    if (new URL(req.url).pathname !== MCP_HTTP_PATH) return refuse(404, `use ${MCP_HTTP_PATH}`);
    const id = req.headers.get("mcp-session-id");
    if (id !== null) {
      const t = sessions.get(id);
      return t ? await t.handleRequest(req) : refuse(404, "no such session; initialize again");
    }
    if (req.method !== "POST") return refuse(400, "initialize a session first");
    const body = await req.json().catch(() => undefined);
    if (!isInitializeRequest(body)) return refuse(400, "initialize a session first");
    const t: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, t),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
    t.onclose = () => {
      if (t.sessionId) sessions.delete(t.sessionId);
    };
    await opts.newServer().connect(t);
    guardArguments(t);
    return await t.handleRequest(req, { parsedBody: body });
  };
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: opts.port,
      onListen: (addr) => {
        port = addr.port;
        resolve({
          port,
          async close() {
            for (const t of sessions.values()) await t.close().catch(() => {});
            await server.shutdown();
          },
        });
      },
    }, handle);
  });
}
