/**
 * Plugins that fail every call (PROTOCOL 4.9, `failing_calls`): a plugin
 * whose last `failing_calls` calls all ended without an answer (a crash, a
 * trap, a time limit) is reported once per streak, with a `failing` event in
 * the journal and an entry in `/proc/core/failing.json`; with
 * `failing_hold_ms`, its new calls are refused with -32004 for that long,
 * instead of being started again and again. One answered call ends the
 * streak.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";

/** What `/proc/core/failing.json` shows of one failing plugin. */
export interface FailingInfo {
  /** Calls in a row that ended without an answer. */
  calls: number;
  /** When the streak reached `failing_calls` (ISO time). */
  since: string;
  /** How the last of them ended. */
  last: string;
  /** Until when new calls are refused (ISO time), when they are held back. */
  held_until?: string;
}

/** Journals an event of the core (`Journal.coreEvent`). */
type ReportEvent = (event: string, fields: Record<string, unknown>) => void;

/** The failure streaks of the world's plugins. */
export class FailingPlugins {
  private streaks = new Map<string, number>();
  private failing = new Map<string, FailingInfo & { heldUntil: number }>();

  /**
   * @param threshold `failing_calls`
   * @param holdMs `failing_hold_ms` (0: report only)
   * @param report journals an event
   */
  constructor(
    private threshold: number,
    private holdMs: number,
    private report: ReportEvent,
  ) {}

  /** Records how a call of `plugin` ended: answered, or not (with how it ended). */
  ended(plugin: string, answered: boolean, how: string): void {
    if (answered) {
      if (this.streaks.delete(plugin) && this.failing.delete(plugin)) {
        this.report("recovered", { plugin });
      }
      return;
    }
    const calls = (this.streaks.get(plugin) ?? 0) + 1;
    this.streaks.set(plugin, calls);
    const known = this.failing.get(plugin);
    if (known) {
      known.calls = calls;
      known.last = how;
      return;
    }
    if (calls < this.threshold) return;
    const now = Date.now();
    const info: FailingInfo & { heldUntil: number } = {
      calls,
      since: new Date(now).toISOString(),
      last: how,
      heldUntil: this.holdMs > 0 ? now + this.holdMs : 0,
    };
    if (this.holdMs > 0) info.held_until = new Date(info.heldUntil).toISOString();
    this.failing.set(plugin, info);
    this.report("failing", {
      plugin,
      calls,
      last: how,
      ...(this.holdMs > 0 ? { held_ms: this.holdMs } : {}),
    });
  }

  /** Throws -32004 when new calls of `plugin` are held back now. */
  check(plugin: string, method: string): void {
    if (this.failing.size === 0) return;
    const f = this.failing.get(plugin);
    if (!f || f.heldUntil <= Date.now()) return;
    throw new HostError(
      "limit-reached",
      `${method} was not started: ${plugin} failed its last ${f.calls} calls (last: ${f.last}); ` +
        `its calls are held back until ${f.held_until} ("failing_hold_ms" in config/limits.json)`,
      { limit: "failing_calls", value: this.threshold, plugin },
    );
  }

  /** The failing plugins by name, for `/proc/core/failing.json`. */
  snapshot(): Record<string, FailingInfo> {
    const out: Record<string, FailingInfo> = {};
    for (const [name, { heldUntil: _, ...info }] of this.failing) out[name] = info;
    return out;
  }
}
