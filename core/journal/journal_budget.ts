/**
 * How many lines one process may add to the journal: a token bucket of
 * `log_lines_per_second` (`config/limits.json`) that holds ten seconds'
 * worth, so a burst at start passes and a flood does not. Lines past it are
 * counted, and the journal gets an entry that says how many went: at the
 * process's end, or once a second while the flood lasts.
 *
 * @module
 */

/** Bursts may reach this many seconds of the rate. */
const BURST_SECONDS = 10;

/** The journal budget of one process. */
export class JournalBudget {
  private tokens: number;
  private last = performance.now();
  private lastReport = performance.now();
  /** Lines dropped since the last report. */
  dropped = 0;

  /** @param perSecond the lines a second it may add, on average */
  constructor(private perSecond: number) {
    this.tokens = perSecond * BURST_SECONDS;
  }

  /** True when one more line may go to the journal; false (and counted) when not. */
  take(): boolean {
    const now = performance.now();
    const cap = this.perSecond * BURST_SECONDS;
    this.tokens = Math.min(cap, this.tokens + (now - this.last) * this.perSecond / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped++;
    return false;
  }

  /**
   * The journal event for the lines dropped so far (and resets the count):
   * at the end (`final`), or when the last report is a second old; else null.
   */
  report(final: boolean): Record<string, unknown> | null {
    if (this.dropped === 0) return null;
    const now = performance.now();
    if (!final && now - this.lastReport < 1000) return null;
    this.lastReport = now;
    const event = {
      event: "dropped",
      lines: this.dropped,
      why: `more than ${this.perSecond} lines a second ("log_lines_per_second" in ` +
        `config/limits.json)`,
    };
    this.dropped = 0;
    return event;
  }
}
