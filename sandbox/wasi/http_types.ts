/**
 * `wasi:http/types` for a command: everything an outgoing request needs.
 * The server-side resources (`incoming-request`, `outgoing-response`,
 * `response-outparam`) exist so that a component that names them links,
 * but a command's host never hands it a request to answer.
 *
 * @module
 */

import { Fields } from "./http_fields.ts";
import { httpErrorCode } from "./http_errors.ts";
import { OutgoingBody, OutgoingRequest, RequestBody, RequestOptions } from "./http_request.ts";
import {
  FutureIncomingResponse,
  FutureTrailers,
  IncomingBody,
  IncomingResponse,
} from "./http_response.ts";

/** `wasi:http/types.incoming-request`: never created here (no incoming handler in a command). */
export class IncomingRequest {}

/** `wasi:http/types.response-outparam`: never created here (no incoming handler in a command). */
export class ResponseOutparam {
  /** Nothing to answer: there is no incoming request. */
  static set(): void {}
}

/** `wasi:http/types.outgoing-response`: can be built, but a command has nowhere to send it. */
export class OutgoingResponse {
  private status = 200;
  private bodyTaken = false;

  /** A 200 response with these headers. */
  constructor(private readonly fields: Fields) {}

  /** The status code. */
  statusCode(): number {
    return this.status;
  }

  /** Sets the status code (100–999). */
  setStatusCode(code: number): void {
    if (code < 100 || code > 999) throw { payload: undefined };
    this.status = code;
  }

  /** The headers (immutable). */
  headers(): Fields {
    return new Fields(this.fields.list, true);
  }

  /** The body (once). */
  body(): OutgoingBody {
    if (this.bodyTaken) throw { payload: undefined };
    this.bodyTaken = true;
    return new OutgoingBody(new RequestBody());
  }
}

/** The `wasi:http/types` interface. */
export const httpTypesInterface = {
  Fields,
  IncomingRequest,
  OutgoingRequest,
  RequestOptions,
  ResponseOutparam,
  IncomingResponse,
  IncomingBody,
  FutureTrailers,
  OutgoingResponse,
  OutgoingBody,
  FutureIncomingResponse,
  httpErrorCode,
};
