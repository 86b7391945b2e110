/**
 * Invalid UTF-8 in a message (PROTOCOL 4.1): refused with -32700 and the
 * byte offset of the first bad byte, never read with U+FFFD in its place.
 * The line splitter (`line_splitter.ts`) finds such a line; the entry points
 * (control socket, MCP over stdio and HTTP) answer it with
 * {@link notUtf8Error}.
 *
 * @module
 */

import { ErrorCode, type RpcErrorObject } from "./errors.ts";

const strict = new TextDecoder("utf-8", { fatal: true });

/** The offset of the first byte of `bytes` that is not part of valid UTF-8; -1 when all are. */
export function invalidUtf8At(bytes: Uint8Array): number {
  try {
    strict.decode(bytes);
    return -1;
  } catch { /* find where */ }
  for (let i = 0; i < bytes.length;) {
    const c = bytes[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes a lead byte needs, and the range of the first (no overlong forms, no surrogates).
    let n: number, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + n >= bytes.length) return i; // cut short
    const first = bytes[i + 1];
    if (first < lo || first > hi) return i;
    for (let k = 2; k <= n; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return -1;
}

/** The error that answers a message with a bad byte at `offset` (-32700, the offset in `data`). */
export function notUtf8Error(offset: number): RpcErrorObject {
  return {
    code: ErrorCode.ParseError,
    message: `the message is not valid UTF-8: a bad byte at offset ${offset} of its line; ` +
      `send text as UTF-8 (binary data as base64)`,
    data: { offset },
  };
}
