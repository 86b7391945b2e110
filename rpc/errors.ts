/**
 * Errors on the wire: JSON-RPC error objects with the codes of the contract
 * (section 4.8). Errors inside the host never travel as these.
 *
 * @module
 */

/** The error object of a response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The standard JSON-RPC codes and the codes the core adds. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** There is no such plugin. */
  NoSuchPlugin: -32001,
  /** The process ended without an answer. */
  NoAnswer: -32002,
  /** The activation was rejected. */
  ActivationRejected: -32003,
  /** A limit of the world was reached (`config/limits.json`): the call was not started. */
  LimitReached: -32004,
} as const;

/** A JSON-RPC error that a core method throws; it becomes the `error` of the response. */
export class RpcError extends Error {
  /** Creates the error with its wire code, message and optional data. */
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "RpcError";
  }

  /** The error object as it goes on the wire. */
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Turns anything thrown into a wire error object; host errors become -32603 without a stack. */
export function toErrorObject(e: unknown): RpcErrorObject {
  if (e instanceof RpcError) return e.toObject();
  return { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) };
}
