/**
 * The boundary between host socket errors and `wasi:sockets/network.error-code`:
 * one table maps what Deno and `node:` networking throw (errno codes such as
 * `EADDRINUSE`, and Deno's error class names such as `AddrInUse`) to the WIT
 * code a guest sees. Anything unknown becomes `unknown`; nothing a guest does
 * to a socket reaches the host as an exception.
 *
 * @module
 */

import { IoError } from "./streams.ts";

/** `wasi:sockets/network.error-code`, as jco passes enum cases. */
export type SocketErrorCode =
  | "unknown"
  | "access-denied"
  | "not-supported"
  | "invalid-argument"
  | "out-of-memory"
  | "timeout"
  | "concurrency-conflict"
  | "not-in-progress"
  | "would-block"
  | "invalid-state"
  | "new-socket-limit"
  | "address-not-bindable"
  | "address-in-use"
  | "remote-unreachable"
  | "connection-refused"
  | "connection-reset"
  | "connection-aborted"
  | "datagram-too-large"
  | "name-unresolvable"
  | "temporary-resolver-failure"
  | "permanent-resolver-failure";

/**
 * Host error → WIT code. Keys are errno codes (`err.code` of Deno and
 * `node:` errors) and Deno error class names (`err.name`), tried in that order.
 */
const SOCKET_ERROR_CODES: Readonly<Record<string, SocketErrorCode>> = {
  // permissions
  EACCES: "access-denied",
  EPERM: "access-denied",
  PermissionDenied: "access-denied",
  NotCapable: "access-denied",
  // local addresses
  EADDRINUSE: "address-in-use",
  AddrInUse: "address-in-use",
  EADDRNOTAVAIL: "address-not-bindable",
  AddrNotAvailable: "address-not-bindable",
  // the remote side
  ECONNREFUSED: "connection-refused",
  ConnectionRefused: "connection-refused",
  ECONNRESET: "connection-reset",
  ConnectionReset: "connection-reset",
  EPIPE: "connection-reset",
  BrokenPipe: "connection-reset",
  ECONNABORTED: "connection-aborted",
  ConnectionAborted: "connection-aborted",
  ENETUNREACH: "remote-unreachable",
  EHOSTUNREACH: "remote-unreachable",
  ENETDOWN: "remote-unreachable",
  EHOSTDOWN: "remote-unreachable",
  ENETRESET: "remote-unreachable",
  ENONET: "remote-unreachable",
  ETIMEDOUT: "timeout",
  TimedOut: "timeout",
  // states and arguments
  ENOTCONN: "invalid-state",
  NotConnected: "invalid-state",
  EISCONN: "invalid-state",
  BadResource: "invalid-state",
  EINVAL: "invalid-argument",
  InvalidData: "invalid-argument",
  EAFNOSUPPORT: "not-supported",
  EOPNOTSUPP: "not-supported",
  EAGAIN: "would-block",
  EWOULDBLOCK: "would-block",
  WouldBlock: "would-block",
  EMSGSIZE: "datagram-too-large",
  // limits
  EMFILE: "new-socket-limit",
  ENFILE: "new-socket-limit",
  ENOMEM: "out-of-memory",
  ENOBUFS: "out-of-memory",
  // name resolution (getaddrinfo through node:dns, and Deno.resolveDns)
  ENOTFOUND: "name-unresolvable",
  ENODATA: "name-unresolvable",
  EAI_NONAME: "name-unresolvable",
  EAI_NODATA: "name-unresolvable",
  NotFound: "name-unresolvable",
  EAI_AGAIN: "temporary-resolver-failure",
  ESERVFAIL: "temporary-resolver-failure",
  ETIMEOUT: "temporary-resolver-failure",
  EAI_FAIL: "permanent-resolver-failure",
  EREFUSED: "permanent-resolver-failure",
};

/** The WIT code for any error a host socket operation threw. */
export function toSocketErrorCode(e: unknown): SocketErrorCode {
  if (typeof e === "object" && e !== null) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === "string" && code in SOCKET_ERROR_CODES) return SOCKET_ERROR_CODES[code];
    if (typeof name === "string" && name in SOCKET_ERROR_CODES) return SOCKET_ERROR_CODES[name];
  }
  return "unknown";
}

/**
 * What a host function throws so that jco returns `err(code)` to the guest
 * (the glue takes `payload` of a thrown object as the error value).
 */
export interface SocketFailure {
  payload: SocketErrorCode;
}

/** Throws `err(code)` to the guest. */
export function fail(code: SocketErrorCode): never {
  throw { payload: code } satisfies SocketFailure;
}

/** Runs a host operation; any exception becomes `err(<mapped code>)` for the guest. */
export function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isFailure(e)) throw e;
    return fail(toSocketErrorCode(e));
  }
}

function isFailure(e: unknown): e is SocketFailure {
  return typeof e === "object" && e !== null && "payload" in e;
}

/**
 * A failed read or write on a socket stream: `wasi:io/error.error` that
 * `wasi:sockets/network.network-error-code` turns back into a WIT code.
 */
export class SocketStreamError extends IoError {
  /**
   * @param message what failed, for the guest's debug string
   * @param socketCode the WIT code of the failure
   */
  constructor(message: string, readonly socketCode: SocketErrorCode) {
    super(message);
  }

  /** A stream error from whatever a read or write on a connection threw. */
  static from(e: unknown, op: "read" | "write"): SocketStreamError {
    const code = toSocketErrorCode(e);
    const detail = e instanceof Error ? e.message : String(e);
    return new SocketStreamError(`socket ${op} failed (${code}): ${detail}`, code);
  }
}

/** `wasi:sockets/network.network-error-code`: the WIT code behind a stream error, if it came from a socket. */
export function networkErrorCode(err: IoError): SocketErrorCode | undefined {
  return err instanceof SocketStreamError ? err.socketCode : undefined;
}
