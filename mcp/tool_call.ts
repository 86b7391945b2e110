/**
 * A tool call: the method's call through the core, its answer as an MCP
 * tool result, its `core.notify` notifications as MCP notifications.
 *
 * - A result comes back as its JSON text, and as `structuredContent` when
 *   the tool has an output schema (wrapped as `{"result": …}` when it is not
 *   an object, `tool_schema.ts`).
 * - A JSON-RPC error (bad params, a plugin's own error, -32002 when the
 *   process ended without an answer) is a tool result with `isError`: its
 *   message as the first text, and the whole error object (`code`,
 *   `message`, `data`) as JSON in the second. It is never a protocol error,
 *   so the agent sees what went wrong and can fix its call; neither is a
 *   host that cannot be reached (-32603 with the reason).
 * - `core.notify {name, params}` becomes `notifications/progress` when the
 *   client asked for progress (a `progressToken`), else
 *   `notifications/message` (logging, level `info`, the plugin as logger,
 *   `{name, params}` as data).
 * - When the client cancels the request, the process is stopped
 *   (`core.stop`).
 * - The request's id is its request key (`request_key.ts`): a retry of it
 *   in the session gets the first answer, never a second run.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode } from "../rpc/errors.ts";
import { errorResponse } from "../rpc/message.ts";
import { RESULT_KEY } from "./tool_schema.ts";
import type { ToolEntry } from "./tool_list.ts";
import type { WorldLink } from "./world_link.ts";

/** What the SDK hands a request handler. */
export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A text for one notification: its `line` or `message` when it has one, else name and params. */
function notifyText(name: string, params: unknown): string {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p.line === "string") return p.line;
  if (typeof p.message === "string") return p.message;
  return `${name} ${JSON.stringify(params ?? {})}`;
}

/**
 * Makes the call behind `entry` with `args`; resolves with the tool result.
 * With `key` (`request_key.ts`: the MCP request's id) it goes as `core.call`
 * with that request key, so a retry of the request never runs it twice.
 */
export async function callTool(
  link: WorldLink,
  entry: ToolEntry,
  args: Record<string, unknown>,
  extra: HandlerExtra,
  key?: string,
): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  const plugin = entry.method.slice(0, entry.method.indexOf("."));
  let progress = 0;
  let notified = false;
  const onNotify = (name: string, params: unknown) => {
    notified = true;
    const p = (params ?? {}) as Record<string, unknown>;
    const sent = token !== undefined
      ? extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: typeof p.progress === "number" && p.progress > progress
            ? (progress = p.progress)
            : ++progress,
          ...(typeof p.total === "number" ? { total: p.total } : {}),
          message: notifyText(name, params),
        },
      })
      : extra.sendNotification({
        method: "notifications/message",
        params: { level: "info", logger: plugin, data: { name, params: params ?? {} } },
      });
    sent.catch(() => {/* the session is gone */});
  };
  const [method, params] = key === undefined
    ? [entry.method, args]
    : ["core.call", { method: entry.method, params: args, key }];
  const response = await link.call(method, params, { onNotify, signal: extra.signal })
    .catch((e) =>
      errorResponse(null, {
        code: ErrorCode.InternalError,
        message: e instanceof Error ? e.message : String(e),
      })
    );
  // The SDK's client handles notifications a microtask late, so a response
  // read in the same chunk as the last notifications overtakes them (their
  // progress handler is gone by then). Answering a turn later keeps them
  // apart whenever the client reads in between; a slow client can still
  // read all at once (DECISIONS.md).
  if (notified) await new Promise((r) => setTimeout(r, 0));
  if (response.error) {
    return {
      isError: true,
      content: [
        { type: "text", text: response.error.message },
        { type: "text", text: JSON.stringify(response.error) },
      ],
    };
  }
  const result = response.result;
  const out: CallToolResult = { content: [{ type: "text", text: JSON.stringify(result) }] };
  if (entry.structured) {
    out.structuredContent = entry.wraps
      ? { [RESULT_KEY]: result }
      : result as Record<string, unknown>;
  }
  return out;
}
