/**
 * The line that says a call is still running: a spinner, the call and the
 * time since it started. Shown from `SPINNER_AFTER_MS` on, redrawn every
 * `SPINNER_EVERY_MS`.
 *
 * @module
 */

/** A call shorter than this shows no spinner. */
export const SPINNER_AFTER_MS = 1000;
/** How often the spinner line is redrawn. */
export const SPINNER_EVERY_MS = 100;

const FRAMES = ["|", "/", "-", "\\"];

/** The spinner line after `elapsedMs` of `label` (a call's method). */
export function spinnerLine(label: string, elapsedMs: number): string {
  const frame = FRAMES[Math.floor(elapsedMs / SPINNER_EVERY_MS) % FRAMES.length];
  return `${frame} ${label} ${(elapsedMs / 1000).toFixed(1)} s (Ctrl-C cancels)`;
}
