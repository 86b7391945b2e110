/**
 * Native processes: methods of the host that run as processes, such as
 * `cargo.build` (section 11). A native process has a pid, a `/proc/<pid>/`
 * folder and journal entries like any other process, and `core.stop` and
 * `core.kill` end it; its body is a TypeScript async function in the host
 * instead of a component in a sandbox. Its result answers its caller and
 * its notifications reach the caller as a guest's would.
 *
 * @module
 */

import { HostError, RpcError, toErrorObject } from "../../rpc/errors.ts";
import type { JsonObject } from "../../rpc/message.ts";
import { Process, type ProcessRunner } from "./process.ts";
import type { Lifecycle } from "./process_lifecycle.ts";
import type { ProcessLog } from "./process_log.ts";
import { callOf, type SpawnRequest } from "./spawn_request.ts";
import { uuidv7 } from "./uuid.ts";

/** What the body of a native process gets. */
export interface NativeContext {
  /** Its process id, `<plugin>-<uuidv7>`. */
  readonly pid: string;
  /** The params of the call. */
  readonly params: JsonObject;
  /**
   * Aborted by `core.stop` (EOF on stdin) and by `core.kill`: the body
   * should end its work at once (kill its subprocesses) and throw.
   */
  readonly signal: AbortSignal;
  /** Writes a line on its stderr: the journal and `/proc/<pid>/log`. */
  log(line: string): void;
  /** `core.notify` to its caller; dropped once the call has ended. */
  notify(name: string, params: JsonObject): void;
}

/**
 * The body of a native method: resolves with the result of the call, or
 * throws (a `HostError` becomes the error response of its wire code).
 */
export type NativeMethod = (ctx: NativeContext) => Promise<unknown>;

/** Why a native body's signal was aborted. */
export type AbortReason = "stop" | "kill";

/**
 * What a native process runs in, standing where a sandbox stands for a
 * sandboxed one: EOF on stdin and a kill abort its signal. Lines written to
 * its stdin are dropped (a native body makes no calls).
 */
export class NativeRunner implements ProcessRunner {
  readonly native = true;
  private controller = new AbortController();

  /** Aborted by EOF (`core.stop`) or `kill` (`core.kill`), with the {@link AbortReason}. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A native body makes no calls: lines on its stdin are dropped. */
  input(): void {}

  /** EOF on stdin (`core.stop`): the body should stop. */
  eof(): void {
    this.abort("stop");
  }

  /** Ends the body's work at once. */
  kill(): void {
    this.abort("kill");
  }

  private abort(reason: AbortReason): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }
}

/**
 * Starts a native process: its body runs in the host; its result or error
 * becomes its response line, its notifications `core.notify` lines, so the
 * router forwards them as for any process. It ends when the body settles
 * (status 0 once answered), or at once when killed.
 */
export function startNative(
  req: SpawnRequest,
  body: NativeMethod,
  core: { lifecycle: Lifecycle; log: ProcessLog },
): Process {
  const runner = new NativeRunner();
  const pid = `${req.plugin}-${uuidv7()}`;
  const p = new Process({ pid, ...callOf(req), runner });
  core.lifecycle.attach(p);
  core.lifecycle.enter(p);
  const ctx = {
    pid,
    params: req.params,
    signal: runner.signal,
    log: (line: string) => {
      if (!p.hasEnded) core.log.write(p, "stderr", line);
    },
    notify: (name: string, params: JsonObject) => {
      if (!p.hasEnded) p.notifyCaller(name, params);
    },
  };
  const answer = (outcome: { result: unknown } | { error: unknown }) => {
    if (p.hasEnded) return;
    p.respond(
      "result" in outcome
        ? { jsonrpc: "2.0", id: pid, result: outcome.result ?? {} }
        : { jsonrpc: "2.0", id: pid, error: toErrorObject(outcome.error) },
    );
    core.lifecycle.ended(p, { status: 0 });
  };
  Promise.resolve().then(() => body(ctx)).then(
    (result) => answer({ result }),
    (error) => {
      if (runner.signal.aborted) return core.lifecycle.ended(p, { status: 1 }); // stopped: no answer
      const expected = error instanceof RpcError ||
        error instanceof HostError && error.code !== "host-fault";
      if (!expected) {
        core.log.write(p, "stderr", `internal error: ${error?.stack ?? error}`);
      }
      answer({ error });
    },
  );
  return p;
}
