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
  /** The caller cancelled the call (`core.cancel`): the callee is being stopped. */
  Cancelled: -32005,
  /** `core.secret` refused: the plugin may not read the secret, or it is not set. */
  SecretRefused: -32006,
  /** A retry of a keyed call (`core.call`'s `key`) whose first attempt is still running. */
  InProgress: -32007,
  /** A step of `cargo.build` failed (the JSON-RPC "server error" code). */
  BuildFailed: -32000,
} as const;

/**
 * A JSON-RPC error that came over the wire (the error of a response), kept
 * as it was to be passed on; errors the host makes are `HostError`s.
 */
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

/**
 * The one table from host error codes to wire codes: what a `HostError`
 * becomes when it has to travel as a JSON-RPC error.
 */
export const WIRE_CODES = {
  "invalid-request": ErrorCode.InvalidRequest,
  "method-not-found": ErrorCode.MethodNotFound,
  "invalid-params": ErrorCode.InvalidParams,
  /** The host failed at something that should not fail (a bug, a broken disk): journaled. */
  "host-fault": ErrorCode.InternalError,
  "no-such-plugin": ErrorCode.NoSuchPlugin,
  "no-answer": ErrorCode.NoAnswer,
  "activation-rejected": ErrorCode.ActivationRejected,
  "limit-reached": ErrorCode.LimitReached,
  "secret-refused": ErrorCode.SecretRefused,
  "in-progress": ErrorCode.InProgress,
  "build-failed": ErrorCode.BuildFailed,
} as const satisfies Record<string, number>;

/** The code of a host error. */
export type HostErrorCode = keyof typeof WIRE_CODES;

/**
 * An error inside the host, with a string code. It is never serialised as it
 * is: on the wire it becomes the JSON-RPC error of `WIRE_CODES`; a sandbox
 * that gets a `host-fault` for a filesystem request traps the process.
 */
export class HostError extends Error {
  /**
   * @param code what kind of failure
   * @param message what failed, for people
   * @param data details for the wire error's `data`
   * @param options `cause`: the exception behind a host fault
   */
  constructor(
    readonly code: HostErrorCode,
    message: string,
    readonly data?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "HostError";
  }

  /** A host fault for an unexpected exception `e`, which becomes its cause. */
  static fault(e: unknown, doing: string): HostError {
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return new HostError("host-fault", `${doing} failed: ${what}`, undefined, { cause: e });
  }

  /** The error object as it goes on the wire (through `WIRE_CODES`). */
  toObject(): RpcErrorObject {
    const code = WIRE_CODES[this.code];
    return this.data === undefined
      ? { code, message: this.message }
      : { code, message: this.message, data: this.data };
  }
}

/** Turns anything thrown into a wire error object; host errors become -32603 without a stack. */
export function toErrorObject(e: unknown): RpcErrorObject {
  if (e instanceof RpcError || e instanceof HostError) return e.toObject();
  return { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) };
}
