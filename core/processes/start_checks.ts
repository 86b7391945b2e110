/**
 * What the supervisor checks before it starts a process (PROTOCOL 4.9): the
 * world's count of live processes, a plugin held back for failing every
 * call (`failing_calls`), the journal's disk (full: `journal_reserve_mib`),
 * and the time limit a caller asks for.
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
    private journal:
      & Pick<Journal, "coreEvent" | "coalescedEvent">
      & Partial<Pick<Journal, "diskRefusal">>,
  ) {}

  /**
   * Refuses a new process while the journal's disk cannot take its entries
   * (`Journal.diskRefusal`: the disk filled and the reserve is in use, or
   * writes fail): its answer would go out with its entries only in memory,
   * lost to a kill of the host.
   */
  disk(method: string, caller: Caller): void {
    const refusal = this.journal.diskRefusal?.();
    if (!refusal) return;
    const why = {
      "reserve-in-use": "the journal writes into its reserve",
      "no-reserve": "the journal's reserve cannot be made",
      "failing": "the journal's writes fail",
    }[refusal.state];
    const mib = this.limits.journal_reserve_mib;
    const message = `${method} was not started: the disk of ${refusal.disk} is full (${why}; ` +
      `"journal_reserve_mib" in config/limits.json is ${mib}); ` +
      `free space on that disk and calls are taken again`;
    this.journal.coalescedEvent("limit", "limit:journal_reserve_mib", {
      limit: "journal_reserve_mib",
      method,
      caller: caller.name,
      disk: refusal.disk,
      state: refusal.state,
    });
    throw new HostError("limit-reached", message, {
      limit: "journal_reserve_mib",
      value: mib,
      disk: refusal.disk,
      state: refusal.state,
    });
  }

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
