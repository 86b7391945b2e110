/**
 * `wasi:http/outgoing-handler` on `fetch`: HTTP and HTTPS (the same code
 * path; `fetch` does TLS). `handle` starts the request and returns at once;
 * the guest polls the `future-incoming-response`. Redirects are not
 * followed (the guest sees the 3xx). A request without `accept-encoding`
 * asks for `identity`; a gzip or brotli body that the guest asked for is
 * decoded by `fetch`, and the guest sees it without those codings' headers.
 *
 * Each request is registered with the process's {@link ProcessResources}
 * and is aborted when the process ends.
 *
 * @module
 */

import { type HttpErrorCode, toHttpErrorCode } from "./http_errors.ts";
import type { OutgoingRequest, RequestOptions } from "./http_request.ts";
import { type Exchange, FutureIncomingResponse, IncomingResponse } from "./http_response.ts";
import type { ProcessResources } from "./resources.ts";

function refuse(code: HttpErrorCode): never {
  throw { payload: code };
}

/** The URL of a request, or `HTTP-request-URI-invalid` / `HTTP-protocol-error`. */
function urlOf(req: OutgoingRequest): URL {
  const scheme = req.scheme();
  // WASI leaves a missing scheme to the host; like wasmtime, it means HTTPS.
  const name = scheme === undefined || scheme.tag === "HTTPS"
    ? "https"
    : scheme.tag === "HTTP"
    ? "http"
    : undefined;
  if (!name) refuse({ tag: "HTTP-protocol-error" });
  const authority = req.authority();
  if (!authority) refuse({ tag: "HTTP-request-URI-invalid" });
  const path = req.pathWithQuery() ?? "/";
  try {
    return new URL(`${name}://${authority}${path.startsWith("/") ? path : `/${path}`}`);
  } catch {
    return refuse({ tag: "HTTP-request-URI-invalid" });
  }
}

function ms(ns: bigint | undefined): number | undefined {
  return ns === undefined ? undefined : Number(ns / 1_000_000n);
}

/** Builds `wasi:http/outgoing-handler` for one process. */
export function outgoingHandlerInterface(resources: ProcessResources): Record<string, unknown> {
  return {
    handle(request: OutgoingRequest, options: RequestOptions | undefined): FutureIncomingResponse {
      const url = urlOf(request);
      const method = request.methodName;
      const headers = request.fields.toHeaders();
      if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
      const body = request.requestBody;
      if (body.aborted) {
        refuse({
          tag: "internal-error",
          val: "the request body was dropped before it was finished",
        });
      }
      // GET and HEAD carry no body in fetch: an unfinished one may only stay empty.
      const bodiless = method === "GET" || method === "HEAD";
      if (bodiless && body.written > 0) refuse({ tag: "HTTP-request-method-invalid" });
      const payload = bodiless ? body.forbid() : body.forFetch();

      const controller = new AbortController();
      let ended = false;
      let timedOut: HttpErrorCode | undefined;
      const timers: ReturnType<typeof setTimeout>[] = [];
      const exchange: Exchange = {
        end() {
          if (ended) return;
          ended = true;
          timers.forEach(clearTimeout);
          unregister();
          controller.abort();
        },
        betweenBytes: options?.betweenBytes,
      };
      const unregister = resources.add(() => exchange.end());
      const limit = (ns: bigint | undefined, code: HttpErrorCode) => {
        const t = ms(ns);
        if (t === undefined) return;
        timers.push(setTimeout(() => {
          timedOut ??= code;
          controller.abort();
        }, t));
      };
      limit(options?.connect, { tag: "connection-timeout" });
      limit(options?.firstByte, { tag: "connection-read-timeout" });

      const response = fetch(url, {
        method,
        headers,
        body: payload as BodyInit | undefined,
        redirect: "manual",
        signal: controller.signal,
      }).then(
        (r) => {
          timers.forEach(clearTimeout);
          return new IncomingResponse(r, exchange);
        },
        (e) => {
          const code = timedOut ??
            (ended
              ? { tag: "internal-error", val: "the request was cancelled" }
              : toHttpErrorCode(e));
          exchange.end();
          body.abort();
          throw code;
        },
      );
      return new FutureIncomingResponse(response, exchange);
    },
  };
}
