/**
 * Calls the core makes itself, straight through the supervisor: a plugin's
 * `rpc.discover` (checked before anything uses it) and the client
 * generator. Each has a time limit, so that a plugin that never answers
 * cannot hang an activation or a read of `/proc`.
 *
 * @module
 */

import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { checkedDocument, InvalidDocument } from "../activation/discover_document.ts";
import type { Journal } from "../journal/journal.ts";
import type { Process } from "../processes/process.ts";
import type { Supervisor } from "../processes/supervisor.ts";

/** How long a call that the core makes itself (`rpc.discover`, the client generator) may take. */
export const CORE_CALL_TIMEOUT_MS = 10_000;

/**
 * The error answer of a call the core made itself: the message, and the
 * JSON-RPC error it came from (its `code` and `data`), so that activation can
 * tell a plugin that answers "no such method" or ends cleanly from one that
 * crashed. A host-local error, never on the wire as is.
 */
export class CoreCallError extends Error {
  /**
   * @param message what failed, naming the plugin and the method
   * @param code the code of the error answer
   * @param data the `data` of the error answer
   */
  constructor(message: string, readonly code: number, readonly data?: unknown) {
    super(message);
    this.name = "CoreCallError";
  }
}

/**
 * Makes a call as the core, to a plugin or to a component file run as that
 * plugin; rejects with a `CoreCallError` for an error answer, with the
 * error of a start that failed, or after `CORE_CALL_TIMEOUT_MS`
 * (a plugin that never answers must not hang an activation or a read of /proc).
 */
export function callAsCore(
  supervisor: Supervisor,
  plugin: string,
  method: string,
  params: Record<string, unknown>,
  wasm?: string,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const caller = {
      name: "core",
      children: new Set<Process>(),
      hasEnded: false,
      deliver: (
        msg: {
          error?: { code: number; message: string; data?: unknown };
          result?: unknown;
          method?: string;
        },
      ) => {
        if (msg.method) return;
        if (msg.error) {
          const { code, message, data } = msg.error;
          reject(new CoreCallError(`${plugin}.${method} failed: ${message}`, code, data));
        } else resolve(msg.result);
      },
    };
    supervisor
      .spawn({ plugin, method, params, caller, callerId: method, detached: false, wasm })
      .then((p) => {
        const timer = setTimeout(() => {
          reject(
            new Error(
              `${plugin}.${method} did not answer within ${CORE_CALL_TIMEOUT_MS / 1000} s`,
            ),
          );
          supervisor.kill(p);
        }, CORE_CALL_TIMEOUT_MS);
        p.ended.then(() => clearTimeout(timer));
      }, reject);
  });
}

/**
 * Calls `rpc.discover` of a plugin (or of a component file run as that
 * plugin, for an activation) as the core, and checks the answer: an
 * invalid document is journaled (`invalid-document`) and rejected.
 */
export async function discoverAsCore(
  supervisor: Supervisor,
  journal: Journal,
  plugin: string,
  wasm?: string,
): Promise<OpenRpcDocument> {
  const answer = await callAsCore(supervisor, plugin, "rpc.discover", {}, wasm);
  try {
    return checkedDocument(plugin, answer);
  } catch (e) {
    if (e instanceof InvalidDocument) {
      journal.coreEvent("invalid-document", {
        plugin,
        candidate: wasm !== undefined,
        problems: e.problems,
      });
    }
    throw e;
  }
}
