/**
 * The guest's side of a response to an outgoing request (`wasi:http/types`):
 * the `future-incoming-response` that `handle` returns, the
 * `incoming-response`, its `incoming-body` (read through an input stream
 * that a background reader fills) and its `future-trailers`.
 *
 * @module
 */

import { FieldList, Fields } from "./http_fields.ts";
import { type HttpErrorCode, HttpStreamError, toHttpErrorCode } from "./http_errors.ts";
import { Pollable, readyPollable } from "./poll.ts";
import { Signal } from "./signal.ts";
import { BackgroundReader } from "./read_buffer.ts";
import { InputStream } from "./streams.ts";

/**
 * Content codings that Deno's `fetch` decodes by itself (also when the guest
 * asked for them): the guest gets the decoded body, so it must not see the
 * coding's `content-encoding` and `content-length`.
 */
const DECODED_BY_FETCH = new Set(["gzip", "x-gzip", "br"]);

/** `err` of a WIT `result` without an error type. */
function refuse(): never {
  throw { payload: undefined };
}

/** What a response owes the request it answers: ending it, once, when the guest is done. */
export interface Exchange {
  /** Cancels the request (and its body) if it still runs; idempotent. */
  end(): void;
  /** The between-bytes timeout in nanoseconds, if the guest set one. */
  betweenBytes?: bigint;
}

/** Reads a response body in the background into a bounded buffer. */
class ResponseBodySource extends BackgroundReader {
  /** The between-bytes timeout in ms, if the guest set one. */
  private readonly timeoutMs: number | undefined;

  constructor(
    private reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
    private exchange: Exchange,
  ) {
    super();
    this.timeoutMs = exchange.betweenBytes === undefined
      ? undefined
      : Number(exchange.betweenBytes / 1_000_000n);
    if (!reader) this.buffer.end();
    else this.pump();
  }

  protected async next(): Promise<Uint8Array | null> {
    const ms = this.timeoutMs;
    const timer = ms === undefined ? undefined : setTimeout(() => {
      this.buffer.fail(
        new HttpStreamError("no body bytes within the between-bytes timeout", {
          tag: "connection-read-timeout",
        }),
      );
      this.reader?.cancel().catch(() => {});
    }, ms);
    const { done, value } = await this.reader!.read().finally(() => clearTimeout(timer));
    return done ? null : value;
  }

  protected failure(error: unknown): HttpStreamError {
    return new HttpStreamError(
      `reading the response body failed: ${error}`,
      toHttpErrorCode(error),
    );
  }

  /** The request is over once its body has ended. */
  protected override paused(): void {
    if (this.buffer.ended) this.exchange.end();
  }

  /** Stops reading and cancels the body (the guest is done with it). */
  close(): void {
    if (this.buffer.ended) return;
    this.buffer.clear();
    this.reader?.cancel().catch(() => {});
    this.exchange.end();
  }
}

/** `wasi:http/types.incoming-body`. */
export class IncomingBody {
  private source: ResponseBodySource | undefined;

  /** The body of a `fetch` response. */
  constructor(private body: ReadableStream<Uint8Array> | null, private exchange: Exchange) {}

  /** The stream of the body's bytes (once). */
  stream(): InputStream {
    if (this.source) refuse();
    this.source = new ResponseBodySource(this.body?.getReader(), this.exchange);
    return new InputStream(this.source);
  }

  /** Ends the body; `fetch` gives no trailers, so they are always none. */
  static finish(self: IncomingBody): FutureTrailers {
    self.dispose();
    return new FutureTrailers();
  }

  private dispose(): void {
    if (this.source) this.source.close();
    else {
      this.body?.cancel().catch(() => {});
      this.exchange.end();
    }
  }

  /** Dropped: the rest of the body is not wanted. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** `wasi:http/types.future-trailers`: always ready, never any trailers. */
export class FutureTrailers {
  private taken = false;

  /** Ready at once. */
  subscribe(): Pollable {
    return readyPollable();
  }

  /** `some(ok(ok(none)))` the first time, then `some(err)`. */
  get(): { tag: "ok" | "err"; val?: unknown } {
    if (this.taken) return { tag: "err", val: undefined };
    this.taken = true;
    return { tag: "ok", val: { tag: "ok", val: undefined } };
  }
}

/** `wasi:http/types.incoming-response`. */
export class IncomingResponse {
  private consumed = false;
  private readonly fields: FieldList;

  /** A response from `fetch`. */
  constructor(private response: Response, private exchange: Exchange) {
    this.fields = FieldList.fromHeaders(response.headers);
    const encoding = this.fields.first("content-encoding")?.trim().toLowerCase();
    if (encoding && DECODED_BY_FETCH.has(encoding)) {
      // fetch hands over the decoded body but keeps the headers of the encoded one.
      this.fields.entries = this.fields.entries.filter(([n]) =>
        n !== "content-encoding" && n !== "content-length"
      );
    }
  }

  /** The status code. */
  status(): number {
    return this.response.status;
  }

  /** The headers (immutable). */
  headers(): Fields {
    return new Fields(this.fields, true);
  }

  /** The body (once). */
  consume(): IncomingBody {
    if (this.consumed) refuse();
    this.consumed = true;
    return new IncomingBody(this.response.body, this.exchange);
  }

  /** Dropped without its body taken: the request is over. */
  [Symbol.dispose](): void {
    if (!this.consumed) {
      this.response.body?.cancel().catch(() => {});
      this.exchange.end();
    }
  }
}

/** `wasi:http/types.future-incoming-response`. */
export class FutureIncomingResponse {
  private result: { ok: IncomingResponse } | { err: HttpErrorCode } | undefined;
  private taken = false;
  private readonly changed = new Signal();

  /** Waits for `response` in the background. */
  constructor(response: Promise<IncomingResponse>, private exchange: Exchange) {
    response.then(
      (ok) => (this.result = { ok }),
      (e) => (this.result = { err: e as HttpErrorCode }),
    ).finally(() => this.changed.notify());
  }

  /** Ready when the response head has arrived or the request failed. */
  subscribe(): Pollable {
    return new Pollable(() => this.result !== undefined, () => this.changed.wait());
  }

  /** `none` while waiting; then `some(ok(ok(response)))` or `some(ok(err(code)))` once; then `some(err)`. */
  get(): { tag: "ok" | "err"; val?: unknown } | undefined {
    if (!this.result) return undefined;
    if (this.taken) return { tag: "err", val: undefined };
    this.taken = true;
    if ("ok" in this.result) return { tag: "ok", val: { tag: "ok", val: this.result.ok } };
    return { tag: "ok", val: { tag: "err", val: this.result.err } };
  }

  /** Dropped before the response was taken: the request is cancelled. */
  [Symbol.dispose](): void {
    if (!this.taken) this.exchange.end();
  }
}
