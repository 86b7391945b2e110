/**
 * MCP's request id as a request key (PROTOCOL 4.10): MCP says a client
 * never uses a request id twice in one session, so a `tools/call` sent again
 * with the same id in the same session is a retry (a client that lost the
 * answer, e.g. on a dropped HTTP stream) and must not run the tool twice.
 * Each tool call goes as `core.call` with the key `mcp:<session>:<id>` (the
 * session: a random id per MCP session, as each has its own server), so the
 * core answers a retry with the recorded answer, or says the first is still
 * running (-32007), and the answer survives a host restart (the journal).
 * Where the id does not fit a key (printable ASCII without spaces, 200
 * characters at most, `core/calls/request_keys.ts`), the call goes without
 * one.
 *
 * @module
 */

import { keyProblem } from "../core/calls/request_keys.ts";

/** The request key of the MCP request `id` in `session`, or undefined when it does not fit one. */
export function mcpRequestKey(session: string, id: string | number): string | undefined {
  const key = `mcp:${session}:${JSON.stringify(id)}`;
  return keyProblem(key) === null ? key : undefined;
}
