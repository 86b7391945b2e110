/**
 * `log -f`: new journal entries, polled every `FOLLOW_EVERY_MS` and handed
 * on one by one, until stopped.
 *
 * @module
 */

import type { Entry, LogFilter } from "../../core/journal/journal.ts";

/** How often the journal is read while following. */
const FOLLOW_EVERY_MS = 200;

/** Follows the journal from now on. */
export class JournalFollower {
  private last: string | undefined;
  private since = Date.now();
  private timer: ReturnType<typeof setInterval>;

  /**
   * @param query reads entries, oldest first
   * @param filter which entries (plugin or pid)
   * @param each receives each new entry
   */
  constructor(
    private query: (f: LogFilter) => Entry[],
    private filter: LogFilter,
    private each: (e: Entry) => void,
  ) {
    this.timer = setInterval(() => this.poll(), FOLLOW_EVERY_MS);
  }

  private poll(): void {
    let entries: Entry[];
    try {
      entries = this.query({ ...this.filter, since: this.last ?? this.since, limit: 10_000 });
    } catch {
      return; // the journal is closing
    }
    for (const e of entries) {
      if (this.last !== undefined && e.id <= this.last) continue;
      this.last = e.id;
      this.each(e);
    }
  }

  /** Stops following. */
  stop(): void {
    clearInterval(this.timer);
  }
}
