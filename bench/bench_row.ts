/**
 * One row of `deno task bench` (`bench/suite.ts`), as every script that adds
 * rows to it gives them (`remote_calls.ts`, `typescript_rows.ts`).
 *
 * @module
 */

/** One measured row: times in ms (NaN where the row is not a time). */
export interface BenchRow {
  /** What was measured. */
  what: string;
  /** The median, in ms. */
  p50: number;
  /** The 99th percentile, in ms. */
  p99: number;
  /** Calls per second. */
  perSecond: number;
  /** How many were measured. */
  runs: number;
  /** What else the row says (the core's or the host's CPU per call, targets). */
  note?: string;
}
