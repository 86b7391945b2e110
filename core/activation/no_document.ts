/**
 * Plugins without a document (PROTOCOL 10.1): a plugin need not answer
 * `rpc.discover`. One that answers it with error -32601 (method not found),
 * or ends with exit status 0 without answering, is a plugin without a
 * document: it can be activated and called by name, and has no methods in
 * the graph, `methods` or MCP until a version answers `rpc.discover`. A
 * plugin that crashes, is killed or hangs on `rpc.discover` is not: its
 * activation is refused as before.
 *
 * @module
 */

import { ErrorCode } from "../../rpc/errors.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { CoreCallFailed } from "../calls/call_as_core.ts";

/** The extension of the empty document that says why a plugin has no methods. */
export const NO_DOCUMENT = "x-sausage-no-document";

/**
 * Why the failed `rpc.discover` `e` means "a plugin without a document", or
 * null when it is a failure (a crash, a kill, a limit, a file that does not run).
 */
export function undocumented(e: unknown): string | null {
  if (!(e instanceof CoreCallFailed)) return null;
  if (e.code === ErrorCode.MethodNotFound) {
    return "it answered rpc.discover with -32601 (method not found)";
  }
  if (e.code !== ErrorCode.NoAnswer) return null;
  const exit = e.exit;
  if (exit?.status === 0 && exit.trap === undefined && exit.limit === undefined) {
    return "it ended with exit status 0 without answering rpc.discover";
  }
  return null;
}

/**
 * The document of a plugin without one: no methods, and `x-sausage-no-document`
 * saying why (`why` as {@linkcode undocumented} gives it).
 */
export function noDocument(plugin: string, why: string): OpenRpcDocument {
  return {
    openrpc: "1.2.6",
    info: { title: plugin, version: "0" },
    methods: [],
    [NO_DOCUMENT]: `${plugin} has no rpc.discover document (${why}): ` +
      "it can be called by name, and has no methods in methods or MCP until a version answers rpc.discover",
  };
}
