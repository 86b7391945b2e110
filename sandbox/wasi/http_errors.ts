/**
 * The boundary between `fetch` failures and `wasi:http/types.error-code`:
 * one table maps what Deno's `fetch` reports (its error messages carry the
 * cause: `tcp connect error: Connection refused`, `dns error: …`) to the WIT
 * variant a guest sees. Anything else is `internal-error` with the message.
 *
 * @module
 */

import { IoError } from "./streams.ts";

/** `wasi:http/types.error-code`, as jco passes variants (the cases this host produces are spelled out). */
export type HttpErrorCode =
  | { tag: "DNS-timeout" }
  | { tag: "DNS-error"; val: { rcode?: string; infoCode?: number } }
  | { tag: "destination-not-found" }
  | { tag: "destination-unavailable" }
  | { tag: "destination-IP-unroutable" }
  | { tag: "connection-refused" }
  | { tag: "connection-terminated" }
  | { tag: "connection-timeout" }
  | { tag: "connection-read-timeout" }
  | { tag: "TLS-protocol-error" }
  | { tag: "TLS-certificate-error" }
  | { tag: "HTTP-request-method-invalid" }
  | { tag: "HTTP-request-URI-invalid" }
  | { tag: "HTTP-request-body-size"; val?: bigint }
  | { tag: "HTTP-response-incomplete" }
  | { tag: "HTTP-response-timeout" }
  | { tag: "HTTP-protocol-error" }
  | { tag: "internal-error"; val?: string }
  | { tag: string; val?: unknown };

/** `fetch` failure text → WIT code, first match wins. */
const HTTP_ERROR_CODES: ReadonlyArray<readonly [RegExp, HttpErrorCode]> = [
  [/dns error|failed to lookup address|name or service not known|no address associated/i, {
    tag: "DNS-error",
    val: {},
  }],
  [/connection refused/i, { tag: "connection-refused" }],
  [/connection closed before message completed|incomplete ?message|unexpected end of file/i, {
    tag: "HTTP-response-incomplete",
  }],
  [/connection reset|broken pipe|connection aborted/i, { tag: "connection-terminated" }],
  [/timed out/i, { tag: "connection-timeout" }],
  [/network is unreachable|no route to host|host is down/i, { tag: "destination-unavailable" }],
  [/certificate|unknownissuer|notvalidforname|certexpired/i, { tag: "TLS-certificate-error" }],
  [/tls|handshake|ssl/i, { tag: "TLS-protocol-error" }],
  [/invalid url|relative url|invalid uri/i, { tag: "HTTP-request-URI-invalid" }],
  [/method/i, { tag: "HTTP-request-method-invalid" }],
  [/invalid (http )?header|header (name|value)|invalid http|parse error|protocol/i, {
    tag: "HTTP-protocol-error",
  }],
];

/** The whole message chain of an error (`fetch` puts the real cause in `cause`). */
function messageOf(e: unknown): string {
  const parts: string[] = [];
  for (let x: unknown = e, depth = 0; x !== undefined && x !== null && depth < 5; depth++) {
    parts.push(x instanceof Error ? x.message : String(x));
    x = x instanceof Error ? x.cause : undefined;
  }
  return parts.join(": ");
}

/** The WIT code for a failed `fetch` or a failed read of a response body. */
export function toHttpErrorCode(e: unknown): HttpErrorCode {
  const message = messageOf(e);
  for (const [pattern, code] of HTTP_ERROR_CODES) {
    if (pattern.test(message)) return structuredClone(code);
  }
  return { tag: "internal-error", val: message };
}

/** A failed read or write of an HTTP body: `wasi:io/error.error` that `http-error-code` turns back into a WIT code. */
export class HttpStreamError extends IoError {
  /**
   * @param message what failed, for the guest's debug string
   * @param httpCode the WIT code of the failure
   */
  constructor(message: string, readonly httpCode: HttpErrorCode) {
    super(message);
  }
}

/** `wasi:http/types.http-error-code`: the WIT code behind a stream error, if it came from an HTTP body. */
export function httpErrorCode(err: IoError): HttpErrorCode | undefined {
  return err instanceof HttpStreamError ? err.httpCode : undefined;
}
