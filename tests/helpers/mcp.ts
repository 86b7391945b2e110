/**
 * MCP messages the tests send by hand.
 *
 * @module
 */

/** An MCP `initialize` request with id `id`. */
export function mcpInitialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  };
}
