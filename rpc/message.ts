/**
 * JSON-RPC 2.0 message types and the parser for one line of the line protocol
 * (section 4.1): one message per line, params always an object, no batches.
 *
 * @module
 */

import { ErrorCode, type RpcErrorObject } from "./errors.ts";
import { JsonDepthError, MAX_DEPTH, parseExact } from "./exact_json.ts";

/** A request or response id. Process ids are strings; callers may use numbers. */
export type Id = string | number;

/** A JSON object, as params must be. */
export type JsonObject = Record<string, unknown>;

/** A request (with id) or a notification (without). */
export interface Request {
  jsonrpc: "2.0";
  id?: Id;
  method: string;
  params: JsonObject;
}

/** The error object of a response (defined beside the codes, in `errors.ts`). */
export type { RpcErrorObject } from "./errors.ts";

/** A response: either `result` or `error`. */
export interface Response {
  jsonrpc: "2.0";
  id: Id | null;
  result?: unknown;
  error?: RpcErrorObject;
}

/** Any message of the protocol. */
export type Message = Request | Response;

/** What one line turned out to be. */
export type Parsed =
  | { kind: "request"; msg: Request }
  | { kind: "response"; msg: Response }
  | { kind: "invalid"; id: Id | null; error: RpcErrorObject }
  | { kind: "text" };

/** A response with a result. */
export function response(id: Id | null, result: unknown): Response {
  return { jsonrpc: "2.0", id, result };
}

/** A response with an error, e.g. `errorResponse(id, {code: ErrorCode.InvalidParams, message})`. */
export function errorResponse(id: Id | null, error: RpcErrorObject): Response {
  return { jsonrpc: "2.0", id, error };
}

/** True when `v` is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === "string" || typeof v === "number";
}

/**
 * Classifies one line. A line that is not JSON, or JSON that does not look like
 * JSON-RPC at all, is `text` (it goes to the journal). A JSON-RPC message that
 * breaks a rule (a batch, params that are not an object) is `invalid`, with the
 * error to answer.
 */
export function parseLine(line: string): Parsed {
  const trimmed = line.trim();
  if (trimmed === "" || (trimmed[0] !== "{" && trimmed[0] !== "[")) return { kind: "text" };
  let v: unknown;
  try {
    v = parseExact(trimmed); // every number's text kept exactly
  } catch (e) {
    if (e instanceof JsonDepthError) return tooDeep(trimmed, e);
    return { kind: "text" };
  }
  if (Array.isArray(v)) {
    if (v.length > 0 && v.every((m) => isObject(m) && m.jsonrpc === "2.0")) {
      return {
        kind: "invalid",
        id: null,
        error: {
          code: ErrorCode.InvalidRequest,
          message: "batches are not supported: send one message per line",
        },
      };
    }
    return { kind: "text" };
  }
  if (!isObject(v) || v.jsonrpc !== "2.0") return { kind: "text" };
  if (typeof v.method === "string") {
    if (v.id !== undefined && !isId(v.id)) {
      return {
        kind: "invalid",
        id: null,
        error: { code: ErrorCode.InvalidRequest, message: "id must be a string or a number" },
      };
    }
    const params = v.params === undefined ? {} : v.params;
    if (!isObject(params)) {
      return {
        kind: "invalid",
        id: (v.id as Id) ?? null,
        error: {
          code: ErrorCode.InvalidParams,
          message: `params of ${v.method} must be an object, not ${kindOf(params)}`,
        },
      };
    }
    return {
      kind: "request",
      msg: { jsonrpc: "2.0", id: v.id as Id | undefined, method: v.method, params },
    };
  }
  if ("result" in v || "error" in v) {
    const id = isId(v.id) ? v.id : null;
    const error = isObject(v.error) ? errorObject(v.error) : undefined;
    return {
      kind: "response",
      msg: error ? errorResponse(id, error) : response(id, v.result),
    };
  }
  return { kind: "text" };
}

/**
 * A message nested past {@link MAX_DEPTH}: -32600 naming the limit, under the
 * message's id when it has one (`JSON.parse` itself takes any depth; only
 * the walks after it do not).
 */
function tooDeep(text: string, e: JsonDepthError): Parsed {
  let id: Id | null = null;
  try {
    const v = JSON.parse(text);
    if (isObject(v) && isId(v.id)) id = v.id;
  } catch { /* not JSON after all: no id */ }
  return {
    kind: "invalid",
    id,
    error: {
      code: ErrorCode.InvalidRequest,
      message: e.message,
      data: { limit: "json_depth", value: MAX_DEPTH },
    },
  };
}

/** The id of the message on `line`, when it is a request or an invalid message with one; else null. */
export function lineId(line: string): Id | null {
  const p = parseLine(line);
  if (p.kind === "request") return p.msg.id ?? null;
  return p.kind === "invalid" ? p.id : null;
}

/** A response's error object; one without a numeric code or a text message gets them (-32603). */
function errorObject(e: JsonObject): RpcErrorObject {
  return {
    ...e,
    code: typeof e.code === "number" ? e.code : ErrorCode.InternalError,
    message: typeof e.message === "string" ? e.message : "an error without a message",
  };
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}
