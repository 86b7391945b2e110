/**
 * A `WorldLink` to a host in this OS process: the host that `sausage mcp`
 * starts for the session when none runs. Each call has a caller of its own
 * named `mcp`, which ends with the call, as a control-socket connection
 * does: cancelling the call, or its answer, stops (`core.stop`) the attached
 * processes it started.
 *
 * @module
 */

import type { Host } from "../core/host.ts";
import { LocalCaller } from "../core/local_caller.ts";
import { ErrorCode } from "../rpc/errors.ts";
import { errorResponse, type Response } from "../rpc/message.ts";
import { type CallOptions, MCP_CALLER, type WorldLink } from "./world_link.ts";

/** A host in this OS process. */
export class HostLink implements WorldLink {
  /** @param host the host that serves the calls */
  constructor(private host: Host) {}

  async call(
    method: string,
    params: Record<string, unknown>,
    opts: CallOptions = {},
  ): Promise<Response> {
    const caller = new LocalCaller(MCP_CALLER, (msg) => {
      if (!("method" in msg) || msg.method !== "core.notify") return;
      const p = msg.params as { name?: unknown; params?: unknown };
      opts.onNotify?.(String(p.name), p.params);
    });
    let cancel = () => {};
    const cancelled = new Promise<Response>((resolve) => {
      cancel = () =>
        resolve(
          errorResponse(null, { code: ErrorCode.InternalError, message: "the call was cancelled" }),
        );
    });
    opts.signal?.addEventListener("abort", cancel);
    try {
      if (opts.signal?.aborted) cancel();
      const answered = caller.call(this.host.router, method, params) as Promise<Response>;
      return await Promise.race([answered, cancelled]);
    } finally {
      opts.signal?.removeEventListener("abort", cancel);
      caller.hasEnded = true;
      this.host.supervisor.stopChildren(caller);
    }
  }

  read(path: string): Promise<Uint8Array> {
    return this.host.fs.read(path);
  }
}
