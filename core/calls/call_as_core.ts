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

/**
 * A call the core made itself failed: the message, its JSON-RPC error code (or
 * "timeout" when the core stopped waiting) and the error's `data`, so that
 * activation and discovery can tell a plugin that answers "no such method" or
 * ends cleanly from one that crashed or was killed. A host-local error, never
 * on the wire as is.
 */
export class CoreCallFailed extends Error {
  /**
   * @param message what failed, naming the plugin and the method
   * @param code the error's code, or "timeout" when the core stopped waiting
   * @param data the `data` of the error answer (of -32002: the exit it tells of)
   */
  constructor(message: string, readonly code: number | "timeout", readonly data?: unknown) {
    super(message);
    this.name = "CoreCallFailed";
  }

  /** The exit of a process that ended without an answer (`data` of -32002), if any. */
  get exit(): { status?: unknown; trap?: unknown; limit?: unknown } | undefined {
    return typeof this.data === "object" && this.data !== null ? this.data : undefined;
  }
}

/** How long a call that the core makes itself (`rpc.discover`, the client generator) may take. */
export const CORE_CALL_TIMEOUT_MS = 10_000;

/**
 * Makes a call as the core, to a plugin or to a component file run as that
 * plugin; rejects with a `CoreCallFailed` for an error answer, with the
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
        if (!msg.error) return resolve(msg.result);
        const { code, message, data } = msg.error;
        reject(new CoreCallFailed(`${plugin}.${method} failed: ${message}`, code, data));
      },
    };
    supervisor
      .spawn({ plugin, method, params, caller, callerId: method, detached: false, wasm })
      .then((p) => {
        const timer = setTimeout(() => {
          reject(
            new CoreCallFailed(
              `${plugin}.${method} did not answer within ${CORE_CALL_TIMEOUT_MS / 1000} s`,
              "timeout",
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
