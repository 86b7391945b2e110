/**
 * The core API (section 9) that this host implements: `core.call`,
 * `core.stop`, `core.kill`, `core.cancel`, `core.log` and `core.exit` (`core.notify` is
 * routed by the router). Locks and activation register their methods in
 * their own modules.
 *
 * @module
 */

import { isLevel, LEVELS } from "../journal/log_event.ts";
import { HostError, RpcError, toErrorObject } from "../../rpc/errors.ts";
import { type Id, isObject, type JsonObject } from "../../rpc/message.ts";
import { journalKeys, keyProblem, RequestKeys } from "./request_keys.ts";
import { optionalParam, stringParam } from "../../rpc/params.ts";
import { type Journal, LOG_LIMIT, type LogFilter } from "../journal/journal.ts";
import type { ProcessTable } from "../processes/process_table.ts";
import type { Caller, Process } from "../processes/process.ts";
import type { CoreMethod } from "./core_method.ts";
import { splitMethod } from "./router.ts";
import type { Supervisor } from "../processes/supervisor.ts";

/** What the core API needs from the host. */
export interface CoreApiDeps {
  supervisor: Supervisor;
  table: ProcessTable;
  journal: Journal;
  /** Ends the host with this exit code. */
  exit(code: number): void;
}

/** The exit code of a host ended by `core.exit`. */
export const EXIT_CODE_CORE_EXIT = 75;

/** Builds the core methods. */
export function coreMethods(deps: CoreApiDeps): Map<string, CoreMethod> {
  const process = (params: JsonObject): Process => {
    const pid = stringParam(params, "pid");
    const p = deps.table.get(pid);
    if (!p) {
      throw new HostError("invalid-params", `no such process: ${pid} (it may have ended)`);
    }
    return p;
  };

  const methods = new Map<string, CoreMethod>();

  const keys = new RequestKeys(journalKeys(deps.journal));

  methods.set("call", (caller: Caller, params, id) => {
    const key = params.key;
    if (key === undefined || key === null) return call(caller, params, id);
    if (id === undefined || params.detach === true) {
      throw new HostError(
        "invalid-params",
        `"key" is for calls whose answer the caller waits for (not a notification, not detach)`,
      );
    }
    const problem = keyProblem(key);
    if (problem) throw new HostError("invalid-params", problem);
    const start = keys.begin(key as string, stringParam(params, "method"));
    if (start.state === "answered") {
      const a = start.answer;
      if ("error" in a) throw new RpcError(a.error.code, a.error.message, a.error.data);
      return a.result;
    }
    let started = false;
    return call(caller, params, id, () => (started = true)).then(
      (result) => {
        start.done({ result });
        return result;
      },
      (e) => {
        start.done(started ? { error: toErrorObject(e) } : null);
        throw e;
      },
    );
  });

  /** `core.call` without a key; `started` is told once its process exists. */
  const call = (
    caller: Caller,
    params: JsonObject,
    id: Id | undefined,
    started: () => void = () => {},
  ): Promise<unknown> => {
    const method = stringParam(params, "method");
    const inner = params.params ?? {};
    if (!isObject(inner)) throw new HostError("invalid-params", `"params" must be an object`);
    const detach = optionalParam(params, "detach", "boolean") ?? false;
    // The call's time limit (PROTOCOL 4.9), checked against the owner's bound before it starts.
    const timeoutMs = deps.supervisor.timeLimit(optionalParam(params, "timeout_ms", "number"));
    const { target, name } = splitMethod(method);
    if (target === "core") {
      throw new HostError(
        "invalid-params",
        "core.call calls plugins; call core methods directly",
      );
    }
    if (id === undefined) {
      // Sent as a notification, core.call starts a detached process and forgets it.
      return deps.supervisor
        .spawn({
          plugin: target,
          method: name,
          params: inner,
          caller,
          callerId: undefined,
          detached: true,
        })
        .then(() => ({}));
    }
    return new Promise((resolve, reject) => {
      const relay: Caller = {
        name: caller.name,
        children: caller.children,
        get hasEnded() {
          return caller.hasEnded;
        },
        deliver(msg) {
          if ("method" in msg) return caller.deliver(msg);
          if ("error" in msg && msg.error) {
            reject(new RpcError(msg.error.code, msg.error.message, msg.error.data));
          } else resolve(msg.result);
        },
      };
      deps.supervisor
        .spawn({
          plugin: target,
          method: name,
          params: inner,
          caller: relay,
          callerId: id,
          detached: detach,
          timeoutMs,
        })
        .then((p) => {
          started();
          // Ended without an answer to deliver (its caller gone): settled all the same.
          p.ended.then((exit) =>
            reject(
              new HostError("no-answer", `${p.pid} ended without an answer`, {
                ...exit,
                outcome: "unknown",
              }),
            )
          );
        }, reject);
    });
  };

  methods.set("stop", async (_caller, params) => {
    await deps.supervisor.stop(process(params));
    return {};
  });

  // A caller cancels a call it made (by the id of its request): the callee is
  // stopped as by core.stop, with its attached processes; the call is answered -32005.
  // A running callee is cancelled at once, before any later message of the caller
  // (its own answer and end, which would stop the callee without a cancel event).
  methods.set("cancel", (caller, params) => {
    const id = params.id;
    if (typeof id !== "string" && typeof id !== "number") {
      throw new HostError("invalid-params", `"id" must be the id of a call you made`);
    }
    const cancel = () => {
      const callee = deps.supervisor.runningCall(caller, id);
      if (!callee?.cancel()) return { cancelled: false };
      deps.supervisor.log.event(callee, { event: "cancel", by: caller.name });
      return deps.supervisor.stop(callee).then(() => ({ cancelled: true, pid: callee.pid }));
    };
    const starting = deps.supervisor.startingCall(caller, id);
    return starting ? starting.then(cancel, () => ({ cancelled: false })) : cancel();
  });

  methods.set("kill", (_caller, params) => {
    deps.supervisor.kill(process(params));
    return {};
  });

  methods.set("log", (_caller, params) => {
    const f: LogFilter = {
      plugin: optionalParam(params, "plugin", "string"),
      pid: optionalParam(params, "pid", "string"),
      grep: optionalParam(params, "grep", "string"),
      limit: optionalParam(params, "limit", "number"),
    };
    const level = params.level;
    if (level !== undefined && level !== null) {
      if (!isLevel(level)) {
        throw new HostError(
          "invalid-params",
          `"level" must be one of ${LEVELS.join(", ")} (events at that level or above)`,
        );
      }
      f.level = level;
    }
    const fields = params.fields;
    if (fields !== undefined && fields !== null) {
      if (typeof fields !== "object" || Array.isArray(fields)) {
        throw new HostError(
          "invalid-params",
          `"fields" must be an object of field values, e.g. {"user": 7}`,
        );
      }
      f.fields = fields as Record<string, unknown>;
    }
    if (
      f.limit !== undefined &&
      (!Number.isInteger(f.limit) || f.limit < 1 || f.limit > LOG_LIMIT.max)
    ) {
      throw new HostError(
        "invalid-params",
        `"limit" must be an integer from 1 to ${LOG_LIMIT.max}`,
      );
    }
    for (const k of ["since", "until"] as const) {
      const v = params[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== "string" && typeof v !== "number") {
        throw new HostError(
          "invalid-params",
          `"${k}" must be an ISO time, epoch milliseconds or an entry id`,
        );
      }
      f[k] = v;
    }
    try {
      return deps.journal.query(f);
    } catch (e) {
      throw new HostError("invalid-params", e instanceof Error ? e.message : String(e));
    }
  });

  methods.set("exit", () => {
    setTimeout(() => deps.exit(EXIT_CODE_CORE_EXIT), 0); // after the answer is out
    return {};
  });

  return methods;
}
