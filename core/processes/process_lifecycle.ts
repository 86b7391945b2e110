/**
 * The lifecycle of processes (section 4.6): a process enters the table and
 * its caller's children; it is stopped (EOF, grace, kill), killed, or ended
 * by its call's time limit; and when it ends, the core cleans up: it answers
 * -32002 if it never answered, stops its attached children, counts the end
 * of a plugin's call for `failing_calls`, and tells the listeners (locks,
 * served files, pipes, watches).
 *
 * @module
 */

import { Deadlines } from "../calls/deadlines.ts";
import type { FailingPlugins } from "./failing_plugins.ts";
import type { Engine } from "../cache/component_cache.ts";
import type { Journal } from "../journal/journal.ts";
import type { Caller, ExitInfo, Process } from "./process.ts";
import type { ProcessLog } from "./process_log.ts";
import type { ProcessTable } from "./process_table.ts";

/** How long `core.stop` waits after closing stdin before it kills. */
export const STOP_GRACE_MS = 5000;

/** Called with every process that ends, after it left the table. */
export type EndHandler = (p: Process) => void;

/** What the lifecycle uses. */
export interface LifecycleDeps {
  table: ProcessTable;
  log: ProcessLog;
  journal: Pick<Journal, "coreEvent">;
  /** Plugins whose calls all end without an answer: told how each call ended. */
  failing: Pick<FailingPlugins, "ended">;
  /** Told of every process that ends, in this order. */
  onEnd: readonly EndHandler[];
}

/** Enters, stops, kills and ends processes. */
export class Lifecycle {
  /** The processes of calls to plugins: how they end counts for `failing`. */
  private calls = new WeakSet<Process>();

  /** Calls' time limits, on one timer (a limit ends its call up to 10 ms late). */
  private timeLimits = new Deadlines(10);

  constructor(private deps: LifecycleDeps) {}

  /**
   * Makes `p` a child of its caller (unless detached); throws when the
   * caller has already ended.
   */
  attach(p: Process): void {
    if (p.detached) return;
    if (p.caller.hasEnded) throw new Error(`${p.caller.name} ended before its call started`);
    p.caller.children.add(p);
  }

  /** Enters a process in the table and the journal (`engine`: which engine runs a guest). */
  enter(p: Process, engine?: Engine): void {
    this.deps.table.add(p);
    this.deps.log.event(p, {
      event: "start",
      method: p.method,
      params: p.params,
      parent: p.parent,
      detached: p.detached,
      ...(engine ? { engine } : {}),
      ...(p.runner.worker ? { worker: p.runner.worker } : {}),
    });
  }

  /** How `p` ends counts for its plugin's `failing_calls` (a call of a plugin's current component). */
  countFailures(p: Process): void {
    this.calls.add(p);
  }

  /** Ends `p` when it has not answered its call within `ms`: its caller gets -32002 saying so. */
  limitTime(p: Process, ms: number): void {
    const cancel = this.timeLimits.add(ms, () => {
      if (p.hasEnded || p.hasAnswered) return;
      this.deps.journal.coreEvent("limit", { limit: "call_timeout_ms", value: ms, pid: p.pid });
      this.deps.log.event(p, { event: "kill" });
      p.runner.kill();
      this.ended(p, {
        status: "killed",
        trap: `time limit: no answer within ${ms} ms ("call_timeout_ms" in config/limits.json, ` +
          `or "timeout_ms" of core.call)`,
        limit: "call_timeout_ms",
        value: ms,
      });
    });
    p.ended.then(cancel);
  }

  /** `core.stop`: closes stdin, waits the grace period, then kills. Resolves when it has ended. */
  async stop(p: Process, graceMs = STOP_GRACE_MS): Promise<ExitInfo> {
    if (p.hasEnded) return p.exit!;
    if (p.stopping()) {
      this.deps.log.event(p, { event: "stop" });
      p.runner.eof();
      const timer = setTimeout(() => this.kill(p), graceMs);
      p.ended.then(() => clearTimeout(timer));
    }
    return await p.ended;
  }

  /**
   * `core.kill`: ends the process now for the core (its caller gets -32002
   * at once); a guest traps at its next check, its sandbox and the other
   * processes there go on.
   */
  kill(p: Process): void {
    if (p.hasEnded) return;
    this.deps.log.event(p, { event: "kill" });
    p.runner.kill();
    this.ended(p, { status: "killed" });
  }

  /** `p` has ended (an exit, a kill): cleans up after it, once. */
  ended(p: Process, exit: ExitInfo): void {
    if (p.hasEnded) return;
    this.deps.table.remove(p);
    p.closeFiles();
    this.deps.log.close(p);
    this.deps.log.event(p, { event: "exit", ...exit });
    if (this.calls.has(p)) {
      this.deps.failing.ended(p.plugin, p.hasAnswered, exitText(exit));
    }
    if (!p.detached) p.caller.children.delete(p);
    p.finish(exit);
    for (const child of [...p.children]) this.stop(child);
    for (const f of this.deps.onEnd) f(p);
  }

  /** Stops every attached child of a caller that ended (a closed connection). */
  stopChildren(caller: Caller): Promise<unknown> {
    return Promise.all([...caller.children].map((c) => this.stop(c)));
  }

  /** Stops every running process (host shutdown). */
  stopAll(graceMs = STOP_GRACE_MS): Promise<unknown> {
    return Promise.all(this.deps.table.all().map((p) => this.stop(p, graceMs)));
  }
}

/** How a process ended, in a few words (for the `failing` event). */
function exitText(exit: ExitInfo): string {
  if (exit.trap) {
    return exit.status === "killed" ? `killed (${exit.trap})` : `trapped (${exit.trap})`;
  }
  return exit.status === "killed" ? "killed" : `exit status ${exit.status}`;
}
