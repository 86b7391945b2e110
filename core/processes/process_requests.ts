/**
 * Requests the core sends to a running process on its stdin (PROTOCOL 5.1):
 * numbered `core-fs-<n>`, answered on its stdout like any request. Each one
 * waits at most `timeoutMs` (a process that reads its own served files must
 * not wait for itself forever), at most `maxInFlight` are open at once, and
 * they all fail when the process ends.
 *
 * @module
 */

import type { JsonObject, Response } from "../../rpc/message.ts";
import { FsError } from "../../vfs/mount.ts";

/** How long a request to a process waits for its answer (PROTOCOL 5.1). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** The prefix of the ids of the core's requests: a process's own call id is its pid. */
export const CORE_REQUEST_ID = "core-fs-";

/** An open request: how to settle it, and its timer. */
interface Open {
  resolve(result: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** The core's open requests to one process. */
export class ProcessRequests {
  private open = new Map<string, Open>();
  private next = 0;
  private ended = false;

  /**
   * @param send writes a message to the process's stdin
   * @param maxInFlight the most open requests (`served_requests`)
   * @param timeoutMs how long one waits
   */
  constructor(
    private send: (msg: { jsonrpc: "2.0"; id: string; method: string; params: JsonObject }) => void,
    private maxInFlight: number,
    private timeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  /**
   * Sends `method` with `params` and resolves with the result. Rejects with
   * an `FsError`: `busy` when `maxInFlight` are open, `io` after the time
   * limit, `no-entry` once the process ended, or the error the process
   * answered (its `data.errno`, `io` without one).
   */
  request(method: string, params: JsonObject): Promise<unknown> {
    if (this.ended) return Promise.reject(new FsError("no-entry", "the process has ended"));
    if (this.open.size >= this.maxInFlight) {
      return Promise.reject(
        new FsError("busy", `${this.maxInFlight} requests are open (served_requests)`),
      );
    }
    const id = `${CORE_REQUEST_ID}${++this.next}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.open.delete(id);
        reject(new FsError("io", `no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.open.set(id, { resolve, reject, timer });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /**
   * Takes a response of the process: true when it answers one of these
   * requests (a late answer, after the time limit, is taken and dropped).
   */
  settle(msg: Response): boolean {
    if (typeof msg.id !== "string" || !msg.id.startsWith(CORE_REQUEST_ID)) return false;
    const open = this.open.get(msg.id);
    if (!open) return true;
    this.open.delete(msg.id);
    clearTimeout(open.timer);
    if (msg.error) open.reject(fsErrorOfAnswer(msg.error));
    else open.resolve(msg.result);
    return true;
  }

  /** Fails every open request (the process ended); later ones fail at once. */
  end(): void {
    this.ended = true;
    for (const o of this.open.values()) {
      clearTimeout(o.timer);
      o.reject(new FsError("no-entry", "the process has ended"));
    }
    this.open.clear();
  }
}

/** The WASI error codes a serving process may answer with (others become `io`). */
const ERRNOS = new Set([
  "access",
  "busy",
  "exist",
  "file-too-large",
  "insufficient-space",
  "invalid",
  "io",
  "is-directory",
  "name-too-long",
  "no-entry",
  "not-directory",
  "not-empty",
  "not-permitted",
  "read-only",
]);

/** The `FsError` of a process's error answer: its `data.errno`, or `io`. */
function fsErrorOfAnswer(error: { message: string; data?: unknown }): FsError {
  const data = error.data as { errno?: unknown } | undefined;
  const errno = typeof data?.errno === "string" && ERRNOS.has(data.errno) ? data.errno : "io";
  return new FsError(errno, error.message);
}
