/**
 * The guest's side of an outgoing HTTP request (`wasi:http/types`):
 * `outgoing-request`, its `outgoing-body` and `request-options`. The body's
 * bytes are buffered until the request is handed to `fetch`; from then on
 * they stream into the request (so a guest may write the body after
 * `handle`, as WASI allows).
 *
 * @module
 */

import { FieldList, Fields } from "./http_fields.ts";
import { type HttpErrorCode, HttpStreamError } from "./http_errors.ts";
import { type ByteSink, IoError, OutputStream } from "./streams.ts";

/** `method`, as jco passes it. */
export type Method = { tag: string; val?: string };

/** `scheme`, as jco passes it. */
export type Scheme = { tag: "HTTP" } | { tag: "HTTPS" } | { tag: "other"; val: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `err` of a WIT `result` without an error type. */
function refuse(): never {
  throw { payload: undefined };
}

/** The bytes of a request body, buffered and then streamed into `fetch`. */
export class RequestBody implements ByteSink {
  private chunks: Uint8Array[] = [];
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Bytes written so far. */
  written = 0;
  /** Set by `outgoing-body.finish`. */
  finished = false;
  /** Set when the guest dropped the body without `finish`: the request is incomplete. */
  aborted = false;

  /** Set for a request that cannot have a body (GET, HEAD): writing bytes fails. */
  private bodiless = false;

  /** @param expected the request's `content-length`, if it has one */
  constructor(private expected?: number) {}

  /** Takes bytes from the guest. */
  write(bytes: Uint8Array): void {
    if (this.finished || this.aborted) throw new IoError("the request body is finished");
    if (this.bodiless && bytes.length > 0) {
      throw new HttpStreamError("a GET or HEAD request has no body", {
        tag: "HTTP-request-method-invalid",
      });
    }
    if (this.expected !== undefined && this.written + bytes.length > this.expected) {
      throw new HttpStreamError(
        `the body is longer than its content-length (${this.expected})`,
        { tag: "HTTP-request-body-size", val: BigInt(this.written + bytes.length) },
      );
    }
    this.written += bytes.length;
    if (this.controller) {
      try {
        this.controller.enqueue(bytes);
      } catch {
        throw new IoError("the request failed before its body was sent");
      }
    } else {
      this.chunks.push(bytes);
    }
  }

  /** Ends the body; a wrong length against `content-length` is `HTTP-request-body-size`. */
  finish(): void {
    if (this.expected !== undefined && this.written !== this.expected) {
      this.abort();
      throw {
        payload: {
          tag: "HTTP-request-body-size",
          val: BigInt(this.written),
        } satisfies HttpErrorCode,
      };
    }
    this.finished = true;
    try {
      this.controller?.close();
    } catch { /* the request already failed; its future reports why */ }
  }

  /** Fails the body (dropped without `finish`). */
  abort(): void {
    if (this.finished || this.aborted) return;
    this.aborted = true;
    try {
      this.controller?.error(new Error("the request body was dropped before it was finished"));
    } catch { /* the request already failed */ }
  }

  /** The body of a request that has none (GET, HEAD): it may still be finished, but stays empty. */
  forbid(): undefined {
    this.bodiless = true;
    return undefined;
  }

  /** What `fetch` gets: the bytes when the body is complete, else a stream that the guest's later writes feed. */
  forFetch(): Uint8Array | ReadableStream<Uint8Array> | undefined {
    if (this.finished) {
      if (this.written === 0) return undefined;
      const all = new Uint8Array(this.written);
      let off = 0;
      for (const c of this.chunks) {
        all.set(c, off);
        off += c.length;
      }
      this.chunks = [];
      return all;
    }
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        for (const c of this.chunks) controller.enqueue(c);
        this.chunks = [];
        if (this.aborted) {
          controller.error(new Error("the request body was dropped before it was finished"));
        }
      },
    });
  }
}

/** `wasi:http/types.outgoing-body`. */
export class OutgoingBody {
  private streamTaken = false;

  /** The guest's handle on a request body. */
  constructor(readonly body: RequestBody) {}

  /** The stream to write the body to (once). */
  write(): OutputStream {
    if (this.streamTaken) refuse();
    this.streamTaken = true;
    return new OutputStream(this.body);
  }

  /** Ends the body. Request trailers cannot be sent through `fetch`: non-empty ones are refused. */
  static finish(self: OutgoingBody, trailers: Fields | undefined): void {
    if (trailers && trailers.entries().length > 0) {
      self.body.abort();
      throw { payload: { tag: "internal-error", val: "request trailers are not supported" } };
    }
    self.body.finish();
  }

  /** Dropped without `finish`: the request fails. */
  [Symbol.dispose](): void {
    this.body.abort();
  }
}

/** `wasi:http/types.outgoing-request`. */
export class OutgoingRequest {
  private _method: Method = { tag: "get" };
  private _pathWithQuery: string | undefined;
  private _scheme: Scheme | undefined;
  private _authority: string | undefined;
  private bodyTaken = false;
  private _body: RequestBody | undefined;
  /** The request's headers. */
  readonly fields: FieldList;

  /** A GET request with these headers (which the request now owns). */
  constructor(headers: Fields) {
    this.fields = headers.list;
  }

  /** The body to write (once). */
  body(): OutgoingBody {
    if (this.bodyTaken) refuse();
    this.bodyTaken = true;
    return new OutgoingBody(this.requestBody);
  }

  /** The body `fetch` sends (empty when the guest never asked for one). */
  get requestBody(): RequestBody {
    if (!this._body) {
      const length = this.fields.first("content-length");
      this._body = new RequestBody(
        length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
      );
      if (!this.bodyTaken) this._body.finished = true;
    }
    return this._body;
  }

  /** The method. */
  method(): Method {
    return this._method;
  }

  /** Sets the method; `other` must be a token. */
  setMethod(method: Method): void {
    if (method.tag === "other" && !TOKEN.test(method.val ?? "")) refuse();
    this._method = method;
  }

  /** The path and query. */
  pathWithQuery(): string | undefined {
    return this._pathWithQuery;
  }

  /** Sets the path and query (no whitespace, no fragment). */
  setPathWithQuery(path: string | undefined): void {
    if (path !== undefined && /[\s#]/.test(path)) refuse();
    this._pathWithQuery = path;
  }

  /** The scheme. */
  scheme(): Scheme | undefined {
    return this._scheme;
  }

  /** Sets the scheme. */
  setScheme(scheme: Scheme | undefined): void {
    if (scheme?.tag === "other" && !/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme.val)) refuse();
    this._scheme = scheme;
  }

  /** The authority (`host[:port]`). */
  authority(): string | undefined {
    return this._authority;
  }

  /** Sets the authority. */
  setAuthority(authority: string | undefined): void {
    if (authority !== undefined && /[\s/?#@]/.test(authority)) refuse();
    this._authority = authority;
  }

  /** The headers, immutable now that they belong to the request. */
  headers(): Fields {
    return new Fields(this.fields, true);
  }

  /** The method as `fetch` takes it. */
  get methodName(): string {
    return this._method.tag === "other" ? this._method.val! : this._method.tag.toUpperCase();
  }
}

/** `wasi:http/types.request-options`: timeouts in nanoseconds. */
export class RequestOptions {
  /** Time to connect (bounds the wait for the response head, as `fetch` does not report the connect). */
  connect: bigint | undefined;
  /** Time until the response head. */
  firstByte: bigint | undefined;
  /** Time between two chunks of the response body. */
  betweenBytes: bigint | undefined;

  /** The connect timeout. */
  connectTimeout(): bigint | undefined {
    return this.connect;
  }

  /** Sets the connect timeout. */
  setConnectTimeout(d: bigint | undefined): void {
    this.connect = d;
  }

  /** The first-byte timeout. */
  firstByteTimeout(): bigint | undefined {
    return this.firstByte;
  }

  /** Sets the first-byte timeout. */
  setFirstByteTimeout(d: bigint | undefined): void {
    this.firstByte = d;
  }

  /** The between-bytes timeout. */
  betweenBytesTimeout(): bigint | undefined {
    return this.betweenBytes;
  }

  /** Sets the between-bytes timeout. */
  setBetweenBytesTimeout(d: bigint | undefined): void {
    this.betweenBytes = d;
  }
}
