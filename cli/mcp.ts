/**
 * `sausage mcp <world> [--http <port>]`: the world as an MCP server (`mcp/`).
 * By default MCP over stdio, the way MCP clients start local servers; with
 * `--http <port>`, Streamable HTTP on `http://127.0.0.1:<port>/mcp`, for
 * requests that carry the world's token (its file is printed on stderr).
 *
 * It uses the world's running host. When none runs (or it stops during the
 * session), it starts one for as long as the session lasts (with the control
 * socket, so `sausage ps`, `call` and `cat` see it, and the boot calls),
 * which, like `sausage call`'s transient host, never builds a plugin
 * (`mcp/session_link.ts`). The session ends when stdin closes
 * (stdio), on SIGINT or SIGTERM, or when the host it started ends
 * (`core.exit`). Only MCP messages go to stdout; everything else to stderr.
 *
 * @module
 */

import { World } from "../core/world/world.ts";
import { defaultLimits, readLimits } from "../core/world/limits.ts";
import { DEFAULT_MAX_LINE } from "../rpc/line_splitter.ts";
import { guardArguments } from "../mcp/argument_guard.ts";
import { StdioTransport } from "../mcp/stdio_transport.ts";
import { httpToken } from "../mcp/http_token.ts";
import { MCP_HTTP_PATH, serveHttp } from "../mcp/http_server.ts";
import { createServer } from "../mcp/server.ts";
import { SessionLink } from "../mcp/session_link.ts";
import { WorldTools } from "../mcp/world_tools.ts";
import { parseArgs, UsageError } from "./args.ts";

/** Usage of `mcp`. */
export const MCP_USAGE = "sausage mcp <world> [--http <port>]";

/** Runs the subcommand; resolves with the exit code. */
export async function mcp(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, [], ["--http"]);
  if (positional.length !== 1) throw new UsageError(`usage: ${MCP_USAGE}`);
  const httpFlag = flags.get("--http");
  const port = httpFlag === undefined ? undefined : Number(httpFlag);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--http needs a TCP port (0-65535), not "${httpFlag}"`);
  }
  const world = new World(positional[0]);
  const name = world.root.slice(world.root.lastIndexOf("/") + 1) || world.root;
  const session = new SessionLink(world, (line) => console.error(line));
  await session.start();
  const tools = new WorldTools(session, world);
  tools.watch();

  let end!: (code: number) => void;
  const ended = new Promise<number>((r) => (end = r));
  const onSignal = () => end(0);
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  session.ended.then((code) => end(code));

  let max = DEFAULT_MAX_LINE;
  let queueMib = defaultLimits().client_queue_mib;
  try {
    const limits = readLimits(world.root);
    max = limits.line_mib * 2 ** 20;
    queueMib = limits.client_queue_mib;
  } catch { /* the host reports a bad config/limits.json */ }
  // A client that does not read: its session ends rather than this process growing.
  const overflow = (n: number) =>
    console.error(
      `sausage mcp: ${n} bytes of answers wait for a client that does not read them, past ` +
        `"client_queue_mib" (${queueMib} MiB in config/limits.json): closing the session`,
    );
  let close: () => Promise<void>;
  if (port === undefined) {
    const server = createServer(tools, name);
    const transport = new StdioTransport(
      max,
      Deno.stdin,
      Deno.stdout,
      queueMib * 2 ** 20,
      overflow,
    );
    await server.connect(transport);
    guardArguments(transport);
    // stdin's end, or a stdout that fails (the client is gone: EPIPE), ends the session.
    const closed = transport.onclose;
    transport.onclose = () => {
      closed?.();
      end(0);
    };
    close = () => server.close();
  } else {
    const { token, path } = await httpToken(world.root);
    const http = await serveHttp({
      port,
      token,
      newServer: () => createServer(tools, name),
      maxQueueBytes: queueMib * 2 ** 20,
      overflow,
    });
    console.error(
      `sausage mcp: http://127.0.0.1:${http.port}${MCP_HTTP_PATH} for ${world.root}; ` +
        `every request needs "Authorization: Bearer <token>", the token is in ${path}`,
    );
    close = () => http.close();
  }
  const code = await ended;
  Deno.removeSignalListener("SIGINT", onSignal);
  Deno.removeSignalListener("SIGTERM", onSignal);
  tools.close();
  await close().catch(() => {});
  await session.close();
  return code;
}
