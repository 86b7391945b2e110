/**
 * A bounded memo of rewritten function bodies, so that a module built again
 * after an edit is instrumented only where its code changed. A TypeScript
 * plugin's rebuild changes only its script (data): every one of the
 * engine's 758 bodies is the same; a Rust test binary after an edit that
 * changes the length of a string keeps 696 of its 1,575 bodies.
 *
 * An entry is found by the body's bytes under a context (what else the
 * rewrite of a body depends on: the indices of the added imports, globals
 * and functions), compared byte for byte, so a hash collision never
 * returns another body's rewrite. When the bytes held (bodies and their
 * rewrites) pass {@link MEMO_BYTES} the memo is emptied and starts again.
 *
 * @module
 */

/** How many bytes of bodies and rewrites the memo holds at most (16 MiB). */
export const MEMO_BYTES = 16 * 2 ** 20;

interface Entry<T> {
  context: string;
  body: Uint8Array;
  value: T;
}

/** FNV-1a over `bytes` (32 bits): a key to find candidates, never trusted alone. */
function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Rewrites of bodies by their bytes and context, at most {@link MEMO_BYTES} of them. */
export class BodyMemo<T> {
  #entries = new Map<number, Entry<T>[]>();
  #bytes = 0;

  constructor(readonly maxBytes = MEMO_BYTES) {}

  /** The bytes held now (bodies and the sizes their rewrites were given with). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The rewrite of `body` under `context`, if it is held. */
  get(context: string, body: Uint8Array): T | undefined {
    const list = this.#entries.get(fnv1a(body));
    return list?.find((e) => e.context === context && same(e.body, body))?.value;
  }

  /** Holds `value` as the rewrite of `body` under `context`; `size` is the rewrite's bytes. */
  set(context: string, body: Uint8Array, value: T, size: number): void {
    const cost = body.length + size;
    if (cost > this.maxBytes) return;
    if (this.#bytes + cost > this.maxBytes) this.clear();
    const key = fnv1a(body);
    const list = this.#entries.get(key) ?? [];
    list.push({ context, body: body.slice(), value });
    this.#entries.set(key, list);
    this.#bytes += cost;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
