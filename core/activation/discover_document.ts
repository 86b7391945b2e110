/**
 * The trust boundary for interface documents: every `rpc.discover` answer
 * the core accepts (for the graph, `/proc/core/plugins/<name>/`, clients,
 * activation) is checked here against the OpenRPC meta-schema and the
 * contract's extensions (`validateOpenRpc`). An invalid document counts as
 * a failed discover: the plugin has no methods, and activation refuses it.
 *
 * @module
 */

import { approximate } from "../../rpc/exact_json.ts";
import { type OpenRpcDocument, validateOpenRpc } from "../../rpc/openrpc.ts";

/** How many problems a message names before it says how many more there are. */
const SHOWN_PROBLEMS = 3;

/** An `rpc.discover` answer that is not a valid document (a host-local error, never on the wire as is). */
export class InvalidDocument extends Error {
  /**
   * Names the plugin and the first problems in the message.
   * @param plugin the plugin that answered
   * @param problems each problem as `<JSON pointer>: <what is wrong>`
   */
  constructor(readonly plugin: string, readonly problems: string[]) {
    const shown = problems.slice(0, SHOWN_PROBLEMS).join("; ");
    const more = problems.length > SHOWN_PROBLEMS
      ? ` (and ${problems.length - SHOWN_PROBLEMS} more)`
      : "";
    super(`its rpc.discover answer is not a valid OpenRPC document: ${shown}${more}`);
    this.name = "InvalidDocument";
  }
}

/** The answer of `plugin` to `rpc.discover`, checked; throws {@linkcode InvalidDocument}. */
export function checkedDocument(plugin: string, raw: unknown): OpenRpcDocument {
  // Schemas are data for the core's checks: a bound beyond 2^53 (`u64::MAX`) as a plain number,
  // rounded down as values are (`exact_json.ts`), so the 64-bit ranges compare right.
  const answer = approximate(raw);
  const problems = validateOpenRpc(answer);
  if (problems.length > 0) throw new InvalidDocument(plugin, problems);
  return answer as OpenRpcDocument;
}
