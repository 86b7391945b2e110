/**
 * What the supervisor checks before it starts a process (PROTOCOL 4.9): the
 * world's count of live processes, a plugin held back for failing every
 * call (`failing_calls`), and the time limit a caller asks for.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import type { FailingPlugins } from "./failing_plugins.ts";
import type { Journal } from "../journal/journal.ts";
import type { Limits } from "../world/limits.ts";
import type { Caller } from "./process.ts";
import type { ProcessTable } from "./process_table.ts";

/** Refuses starts past the world's limits, and journals each refusal. */
export class StartChecks {
  constructor(
    private limits: Limits,
    private table: Pick<ProcessTable, "size">,
    private failing: Pick<FailingPlugins, "check">,
    private journal: Pick<Journal, "coreEvent" | "coalescedEvent">,
  ) {}

  /**
   * The time limit of a call (PROTOCOL 4.9): `timeout_ms` of `core.call`, or
   * `call_timeout_ms`; throws -32602 past `call_timeout_max_ms`.
   */
  timeLimit(asked: number | undefined): number {
    if (asked === undefined) {
      return Math.min(this.limits.call_timeout_ms, this.limits.call_timeout_max_ms);
    }
    const max = this.limits.call_timeout_max_ms;
    if (!Number.isInteger(asked) || asked < 1 || asked > max) {
      throw new HostError(
        "invalid-params",
        `"timeout_ms" must be an integer from 1 to ${max} ("call_timeout_max_ms" in config/limits.json)`,
      );
    }
    return asked;
  }

  /** Refuses a new process when the world has as many as its limit allows. */
  processes(method: string, caller: Caller): void {
    if (this.table.size < this.limits.processes) return;
    const message = `${method} was not started: the world has ${this.table.size} live processes, ` +
      `its limit ("processes" in config/limits.json)`;
    // A process bomb's refusals: one entry per window with their count.
    const fields = { limit: "processes", method, caller: caller.name };
    this.journal.coalescedEvent("limit", "limit:processes", fields);
    throw new HostError("limit-reached", message, {
      limit: "processes",
      value: this.limits.processes,
    });
  }

  /** Refuses a call of a plugin held back for failing every call (`failing_hold_ms`). */
  failingPlugin(plugin: string, method: string, caller: Caller): void {
    try {
      this.failing.check(plugin, `${plugin}.${method}`);
    } catch (e) {
      this.journal.coreEvent("limit", {
        limit: "failing_calls",
        method: `${plugin}.${method}`,
        caller: caller.name,
      });
      throw e;
    }
  }
}
