/**
 * Flow control of one process's output (`output_window_kib`, PROTOCOL 4.9):
 * the text of its stdout and stderr lines that the core has not yet taken
 * (`took` messages) is bounded, so a process that floods its output waits
 * at its next write (a suspending host call, like a read), and the frames of
 * other processes never queue behind more than a window of its lines.
 *
 * @module
 */

/** One process's lines in flight to the core. */
export class OutputWindow {
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  /** @param size the most text in flight before writes wait (UTF-16 units, one more per line) */
  constructor(private size: number) {}

  /** Counts a line handed to the link. */
  sent(line: string): void {
    this.inFlight += line.length + 1;
  }

  /** The core took `count` of it: waiting writes go on once the window has room. */
  took(count: number): void {
    this.inFlight = Math.max(0, this.inFlight - count);
    if (this.full) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /** True while a window's worth or more is in flight: writes wait. */
  get full(): boolean {
    return this.inFlight >= this.size;
  }

  /** Resolves once the window has room; undefined when it has room now. */
  whenOpen(): Promise<void> | undefined {
    if (!this.full) return undefined;
    return new Promise((go) => this.waiting.push(go));
  }
}
