/**
 * Routing (sections 4.2–4.5): splits `<target>.<method>`, sends `core.*` to
 * the core API and everything else to a new process, brings answers back to
 * the caller under the caller's id, and forwards `core.notify`.
 *
 * @module
 */

import { HostError, toErrorObject } from "../../rpc/errors.ts";
import {
  type Id,
  type JsonObject,
  parseLine,
  type Request,
  type Response,
} from "../../rpc/message.ts";
import type { CoreMethod } from "./core_method.ts";
import type { Caller, Process } from "../processes/process.ts";
import type { ProcessLog } from "../processes/process_log.ts";
import type { Supervisor } from "../processes/supervisor.ts";
import { CallQueue } from "./call_queue.ts";

/** What the router uses of the supervisor. */
export type RouterSupervisor = Pick<Supervisor, "spawn" | "limits"> & {
  readonly log: Pick<ProcessLog, "write">;
};

/** Splits a method name at the first dot. */
export function splitMethod(method: string): { target: string; name: string } {
  const dot = method.indexOf(".");
  if (dot <= 0 || dot === method.length - 1) {
    throw new HostError(
      "method-not-found",
      `method names have the form <plugin>.<method>: "${method}"`,
    );
  }
  return { target: method.slice(0, dot), name: method.slice(dot + 1) };
}

/** Routes messages between callers, the core and processes. */
export class Router {
  /** The core's methods by name (without `core.`). */
  readonly core = new Map<string, CoreMethod>();

  /**
   * Takes a process's answer to a request of the core (`core.fs`, PROTOCOL
   * 5.1): true when it was one, and the router passes it no further.
   */
  coreReplies: (p: Process, msg: Response) => boolean = () => false;

  /** Fair starts: a few calls in flight per caller, the rest wait in order, callers in turn. */
  private calls: CallQueue;

  /** `supervisor` starts the processes of calls and journals their lines; it hands their stdout here ({@link fromProcess}). */
  constructor(private supervisor: RouterSupervisor) {
    const { calls_in_flight, calls_starting, processes, world_calls_starting } = supervisor.limits;
    this.calls = new CallQueue(calls_in_flight, processes, calls_starting, world_calls_starting);
  }

  /** Answers a request of `caller`; nothing when it was a notification. */
  private answer(
    caller: Caller,
    id: Id | undefined,
    outcome: { result: unknown } | { error: unknown },
  ): void {
    if (id === undefined || caller.hasEnded) return;
    if ("result" in outcome) {
      caller.deliver({
        jsonrpc: "2.0",
        id,
        result: outcome.result === undefined ? {} : outcome.result,
      });
    } else caller.deliver({ jsonrpc: "2.0", id, error: toErrorObject(outcome.error) });
  }

  /** Handles a request or notification from any caller. */
  request(caller: Caller, req: Request): void {
    let target: string, name: string;
    try {
      ({ target, name } = splitMethod(req.method));
    } catch (e) {
      return this.answer(caller, req.id, { error: e });
    }
    if (target === "core") return this.callCore(caller, name, req);
    const start = () =>
      this.supervisor
        .spawn({
          plugin: target,
          method: name,
          params: req.params,
          caller,
          callerId: req.id,
          detached: false,
        })
        .then((p) => this.calls.started(caller, p), (e) => {
          this.calls.failed(caller);
          this.answer(caller, req.id, { error: e });
        });
    try {
      this.calls.enter(caller, start);
    } catch (e) {
      this.answer(caller, req.id, { error: e });
    }
  }

  private callCore(caller: Caller, name: string, req: Request): void {
    if (name === "notify" && req.id === undefined) return this.forwardNotify(caller, req.params);
    const method = this.core.get(name);
    if (!method) {
      return this.answer(caller, req.id, {
        error: new HostError(
          "method-not-found",
          `the core has no method ${name} (see /proc/core/PROTOCOL.md)`,
        ),
      });
    }
    // Run at once, not on a later microtask: a process's messages take effect in the order it
    // wrote them, before its exit that may come in the same batch of frames (a `core.pipe` with
    // the last answer of an endpoint, then the server's end, which closes the connection).
    // Answers still go out on a microtask, in the order the requests came.
    let outcome: Promise<unknown>;
    try {
      outcome = Promise.resolve(method(caller, req.params, req.id));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome.then(
      (result) => this.answer(caller, req.id, { result }),
      (error) => this.answer(caller, req.id, { error }),
    );
  }

  /** `core.notify` from a process: forwarded to its caller while the call runs, else dropped. */
  private forwardNotify(from: Caller, params: JsonObject): void {
    if ("notifyCaller" in from) (from as Process).notifyCaller(params.name, params.params);
  }

  /** Handles one stdout line of a process. */
  fromProcess(p: Process, line: string): void {
    // The SDK writes a newline before each message (section 4.1): blank lines carry nothing.
    if (line.trim() === "") return;
    const parsed = parseLine(line);
    switch (parsed.kind) {
      case "text":
        this.supervisor.log.write(p, "stdout", line);
        return;
      case "invalid":
        // Answered as JSON-RPC asks, with a null id when the id is unknown (a batch).
        this.supervisor.log.write(p, "core", `invalid message: ${parsed.error.message}`);
        p.deliver({ jsonrpc: "2.0", id: parsed.id, error: parsed.error });
        return;
      case "request":
        this.request(p, parsed.msg);
        return;
      case "response": {
        if (this.coreReplies(p, parsed.msg)) return;
        const dropped = p.respond(parsed.msg);
        this.calls.finished(p);
        if (dropped) {
          this.supervisor.log.write(p, "stdout", line);
          this.supervisor.log.write(p, "core", dropped);
        }
      }
    }
  }
}
