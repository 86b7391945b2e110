/**
 * The line that shows a `sausage call` is still running, on a terminal: the
 * console's spinner line (`console/spinner.ts`) on stderr, from
 * `SPINNER_AFTER_MS` on, redrawn in place; lines printed meanwhile (a
 * notification's text) go above it. Off a terminal it draws nothing.
 *
 * @module
 */

import { SPINNER_AFTER_MS, SPINNER_EVERY_MS, spinnerLine } from "./console/spinner.ts";

const enc = new TextEncoder();
/** Back to the start of the line, and erase it. */
const CLEAR = "\r\x1b[2K";

/** A call's spinner line on stderr. */
export class ProgressLine {
  private started = performance.now();
  private timer: ReturnType<typeof setInterval> | undefined;
  private shown = false;

  /** Starts drawing `label`'s line when `enabled` (default: stderr is a terminal). */
  constructor(private label: string, enabled = Deno.stderr.isTerminal()) {
    if (enabled) this.timer = setInterval(() => this.draw(), SPINNER_EVERY_MS);
  }

  /** Seconds since the call started, to a tenth. */
  get seconds(): string {
    return ((performance.now() - this.started) / 1000).toFixed(1);
  }

  private draw(): void {
    const ms = performance.now() - this.started;
    if (ms < SPINNER_AFTER_MS) return;
    Deno.stderr.writeSync(enc.encode(CLEAR + spinnerLine(this.label, ms)));
    this.shown = true;
  }

  private clear(): void {
    if (this.shown) Deno.stderr.writeSync(enc.encode(CLEAR));
    this.shown = false;
  }

  /** Prints `text` on stderr above the spinner line. */
  line(text: string): void {
    this.clear();
    console.error(text);
  }

  /** Stops drawing and erases the line. */
  stop(): void {
    // Only a timer that was set: Deno loads its timers on first use, ~15 ms of a call's ~180.
    if (this.timer !== undefined) clearInterval(this.timer);
    this.clear();
  }
}
