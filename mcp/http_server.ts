/**
 * `sausage mcp <world> --http <port>`: MCP's Streamable HTTP transport on
 * `http://127.0.0.1:<port>/mcp`, one SDK transport and server per session.
 * Nothing runs without the world's token (`http_token.ts`): a request
 * without `Authorization: Bearer <token>` gets 401 before it is read. A
 * `Host` other than `127.0.0.1:<port>` or `localhost:<port>` gets 403 (a web
 * page that rebinds its own name to 127.0.0.1 cannot send ours), and so does
 * a request with an `Origin` (browsers send one; MCP clients do not).
 * A POST's body is read here (within the SDK's bound), refused when it is
 * not UTF-8 (the SDK read it with U+FFFD for the bad bytes), and parsed with
 * `parseExact`, so a tool's numbers reach the plugin as sent (the SDK's own
 * `JSON.parse` rounded integers past 2^53, decimals, `1e400`, `-0`). What
 * waits in a session's event stream for a client that does not read it is
 * bounded (`maxQueueBytes`, `bounded_body.ts`): past it the session is closed.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/requestBody"
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  requestBodyTooLargeMessage,
} from "@modelcontextprotocol/sdk/server/requestBody.js";
import { authorized } from "./http_token.ts";
import { JsonDepthError, parseExact } from "../rpc/exact_json.ts";
import { invalidUtf8At, notUtf8Error } from "../rpc/utf8_check.ts";
import { guardArguments } from "./argument_guard.ts";
import { boundedBody } from "./bounded_body.ts";

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
  /**
   * The most bytes of a response's stream that may wait for a client that
   * does not read it (`client_queue_mib`; default: no bound). Past it the
   * session is closed.
   */
  maxQueueBytes?: number;
  /** Told when a session is closed for it, with the bytes that waited. */
  overflow?: (queuedBytes: number) => void;
}

/** A running HTTP server. */
export interface HttpServer {
  /** The port it listens on. */
  port: number;
  /** Stops it and closes every session. */
  close(): Promise<void>;
}

function refuse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }),
    { status, headers: { "content-type": "application/json", ...headers } },
  );
}

/**
 * A POST's body parsed with every number kept exactly, within the SDK's
 * bound (4 MiB); or the answer to one too large (413), not UTF-8 (400,
 * -32700 with the bad byte's offset), not JSON (400, -32700) or nested past
 * the limit (400, -32600 naming it).
 */
async function exactBody(req: Request): Promise<{ parsed: unknown } | Response> {
  const bytes = await requestBytes(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
  if (bytes === null) return refuse(413, requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE));
  const bad = invalidUtf8At(bytes);
  if (bad >= 0) {
    const e = notUtf8Error(bad).message.replace("of its line", "of the body");
    return refuse(400, e, {}, -32700);
  }
  try {
    return { parsed: parseExact(decoder.decode(bytes)) };
  } catch (e) {
    if (e instanceof JsonDepthError) return refuse(400, e.message, {}, -32600);
    return refuse(400, "Parse error: Invalid JSON", {}, -32700);
  }
}

const decoder = new TextDecoder();

/** The bytes of a request's body; null past `max` (read no further). */
async function requestBytes(req: Request, max: number): Promise<Uint8Array | null> {
  if (Number(req.headers.get("content-length")) > max) return null;
  if (req.body === null) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of req.body) {
    size += part.length;
    if (size > max) return null;
    parts.push(part);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) (all.set(p, at), at += p.length);
  return all;
}

/** Starts the server. */
export function serveHttp(opts: HttpOptions): Promise<HttpServer> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let port = opts.port;
  /** A session's event stream, with what waits for its reader bounded (`bounded_body.ts`). */
  const bounded = (
    res: Response,
    t: WebStandardStreamableHTTPServerTransport,
  ): Response => {
    const max = opts.maxQueueBytes;
    if (
      !res.body || max === undefined || !/event-stream/.test(res.headers.get("content-type") ?? "")
    ) {
      return res;
    }
    const body = boundedBody(res.body, max, (n) => {
      opts.overflow?.(n);
      t.close().catch(() => {});
    });
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
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
    const t = id === null ? undefined : sessions.get(id);
    if (id !== null && !t) return refuse(404, "no such session; initialize again");
    if (req.method !== "POST") {
      return t ? bounded(await t.handleRequest(req), t) : refuse(400, "initialize a session first");
    }
    const body = await exactBody(req);
    if (body instanceof Response) return body;
    if (t) return bounded(await t.handleRequest(req, { parsedBody: body.parsed }), t);
    if (!isInitializeRequest(body.parsed)) return refuse(400, "initialize a session first");
    return await newSession(req, body.parsed);
  };
  const newSession = async (req: Request, body: unknown): Promise<Response> => {
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
