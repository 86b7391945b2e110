/**
 * What `activate` adds when the plugin activated has no `rpc.discover`
 * document (`core/activation/no_document.ts`): it has no methods yet.
 *
 * @module
 */

import { NO_DOCUMENT } from "../core/activation/no_document.ts";

/**
 * `"; <why it has no methods>"` when `core.activate`'s result says `plugin`
 * has no document, else `""`.
 */
export function noDocumentNote(result: unknown, plugin: string): string {
  const doc = (result as Record<string, Record<string, unknown>> | null)?.[plugin];
  const why = doc?.[NO_DOCUMENT];
  return typeof why === "string" ? `; ${why}` : "";
}
