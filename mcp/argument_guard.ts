/**
 * `tools/call` requests whose `arguments` (or `params`, or `name`) have the
 * wrong type get -32602 with a one-line reason, before the SDK's validator
 * sees them (it answers -32603 with a dump of its checks). Put in front of a
 * transport's `onmessage` once the server is connected to it.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC's "invalid params". */
const INVALID_PARAMS = -32602;

/** What a value is, in a few words (`an array`, `a string`, `null`). */
export function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** Why a `tools/call` request is malformed (one line), or null when it is not one or is fine. */
export function badToolCall(msg: unknown): string | null {
  const m = msg as { method?: unknown; params?: unknown };
  if (typeof m !== "object" || m === null || m.method !== "tools/call") return null;
  const p = m.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof p !== "object" || p === null || Array.isArray(p)) {
    return `tools/call needs params {"name", "arguments"}, not ${kindOf(p)}`;
  }
  if (typeof p.name !== "string") {
    return `tools/call needs "name" as a string, not ${kindOf(p.name)}`;
  }
  const args = p.arguments;
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return `"arguments" of tools/call must be a JSON object of the tool's parameters, not ${
      kindOf(args)
    }`;
  }
  return null;
}

/**
 * Answers malformed `tools/call` requests arriving on `transport` with -32602
 * itself; hands everything else to the handler the server installed.
 */
export function guardArguments(transport: Transport): void {
  const inner = transport.onmessage;
  if (!inner) return;
  transport.onmessage = (msg, extra) => {
    const why = badToolCall(msg);
    const id = (msg as { id?: string | number }).id;
    if (why === null || id === undefined) return inner(msg, extra);
    const answer = { jsonrpc: "2.0", id, error: { code: INVALID_PARAMS, message: why } };
    transport.send(answer as JSONRPCMessage).catch(() => {});
  };
}
