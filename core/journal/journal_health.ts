/**
 * How the journal's writes are going: on a full (or failing) disk the
 * journal keeps answering reads and keeps its entries in memory, up to a
 * bound, instead of retrying in a loop. Failures are counted and said once
 * (to the terminal, and in `/proc/core/journal.json`); writes are tried
 * again after a growing pause (0.1 s doubling to 5 s), and when one works
 * the journal says how many failures and dropped entries the streak cost.
 *
 * @module
 */

/** The longest pause between two tries while writes fail (ms). */
const MAX_PAUSE_MS = 5000;

/** The first pause after a failure (ms). */
const FIRST_PAUSE_MS = 100;

/** The most entries kept in memory while writes fail: older ones are dropped (and counted). */
export const MAX_PENDING = 10_000;

/** What `/proc/core/journal.json` shows. */
export interface JournalHealthView {
  /** Writes that failed since the host started. */
  write_failures: number;
  /** Entries dropped since the host started because writes failed for long. */
  dropped_entries: number;
  /** Whether writes fail now, and since when (ISO time). */
  failing_since: string | null;
  /** The last failure's error. */
  last_error: string | null;
  /**
   * Whether the disk takes what the host acknowledges (`DiskState` of
   * `journal_writer.ts`): anything but `ok` refuses new calls.
   */
  disk?: string;
  /** The reserve's size (`journal_reserve_mib`), in bytes; 0 when none. */
  reserve_bytes?: number;
}

/** The end of a streak of failed writes. */
export interface FailureStreak {
  failures: number;
  dropped: number;
  ms: number;
}

/** The state of the journal's writes. */
export class JournalHealth {
  private failures = 0;
  private dropped = 0;
  private streakFailures = 0;
  private streakDropped = 0;
  private failingSince: number | null = null;
  private lastError: string | null = null;
  private pause = 0;
  private retryAt = 0;

  /** @param report where the one line at the start and at the end of a streak goes */
  constructor(private report: (line: string) => void) {}

  /** True when a write may be tried now (always, unless writes fail and the pause runs). */
  due(now = Date.now()): boolean {
    return this.failingSince === null || now >= this.retryAt;
  }

  /** How long until a write may be tried (ms; 0 when it may now). */
  wait(now = Date.now()): number {
    return this.failingSince === null ? 0 : Math.max(0, this.retryAt - now);
  }

  /** A write failed with `e`: counted, said at the first of a streak, and the next try paused. */
  failed(e: unknown, now = Date.now()): void {
    this.failures++;
    this.streakFailures++;
    this.lastError = e instanceof Error ? e.message : String(e);
    if (this.failingSince === null) {
      this.failingSince = now;
      this.report(
        `sausage: journal write failed: ${this.lastError}; entries are kept in memory ` +
          `(up to ${MAX_PENDING}) and written when it works again (tried every few seconds; ` +
          `see /proc/core/journal.json)`,
      );
    }
    this.pause = Math.min(MAX_PAUSE_MS, Math.max(FIRST_PAUSE_MS, this.pause * 2));
    this.retryAt = now + this.pause;
  }

  /** A write worked: returns the streak it ended (and says so), or null when none. */
  succeeded(now = Date.now()): FailureStreak | null {
    if (this.failingSince === null) return null;
    const streak = {
      failures: this.streakFailures,
      dropped: this.streakDropped,
      ms: now - this.failingSince,
    };
    this.failingSince = null;
    this.streakFailures = this.streakDropped = 0;
    this.pause = 0;
    this.report(
      `sausage: journal writes work again after ${streak.failures} failures in ` +
        `${Math.round(streak.ms / 1000)} s; ${streak.dropped} entries were dropped`,
    );
    return streak;
  }

  /** Drops the oldest of `pending` past {@link MAX_PENDING} (counted); returns what is kept. */
  bound<T>(pending: T[]): T[] {
    if (pending.length <= MAX_PENDING) return pending;
    const n = pending.length - MAX_PENDING;
    this.dropped += n;
    this.streakDropped += n;
    return pending.slice(n);
  }

  /** The state, as `/proc/core/journal.json` shows it. */
  view(): JournalHealthView {
    return {
      write_failures: this.failures,
      dropped_entries: this.dropped,
      failing_since: this.failingSince === null ? null : new Date(this.failingSince).toISOString(),
      last_error: this.lastError,
    };
  }
}
