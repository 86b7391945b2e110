/**
 * The sandbox thread's turns of the event loop, which guests' time slices
 * and fair starts count by (DECISIONS.md, "Many processes per sandbox"): a
 * clock that makes sure the next turn is seen, and the way to run something
 * after pending I/O and the other guests.
 *
 * @module
 */

/**
 * How long the guests run before the event loop gets a turn, in ms. With 5
 * ms, a no-op call beside two spinners waited p50 11.7 ms; with 2 ms, p50
 * 2.0 ms (bench/colocation.ts).
 */
export const SLICE_MS = 2;

/** Turns of the event loop seen (a `setImmediate` counts them while guests run). */
export let turn = 0;
/** A turn counter is scheduled. */
let watching = false;

/** The time now (ms); makes sure the next turn of the event loop is seen. */
export function clock(): number {
  if (!watching) {
    watching = true;
    setImmediate(() => {
      watching = false;
      turn++;
    });
  }
  return performance.now();
}

/**
 * Runs `f` after pending I/O (the pipe to the core, sockets) and the other
 * guests: `setImmediate` runs after the event loop's poll phase. A
 * `MessageChannel` message starved the pipe (a call beside two spinners took
 * 270–550 ms); `setTimeout(0)` took ~10 ms; `setImmediate` 5–10 ms.
 */
export function nextTurn(f: () => void): void {
  setImmediate(f);
}
