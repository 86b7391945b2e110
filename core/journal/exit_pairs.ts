/**
 * One row for a short process's `start` and `exit` (issue 38): when a
 * batch holds both core events of a process, its `exit` is written in the
 * `start` row's `end_id`, `end_time` and `end_line` columns, and every
 * reader (`journal.ts`) shows it as the entry it was. A no-op call costs
 * the writer one row instead of two (a table and two index inserts each).
 *
 * @module
 */

import type { Row } from "./journal_row.ts";

/**
 * The longest time from a `start` to the `exit` written in its row (ms).
 * A reader looks this far before a bound for exits that pass it.
 */
export const PAIR_MS = 1000;

/** A row with the exit of its process: the 9 columns of {@link Row}, then `end_id`, `end_time`, `end_line`. */
export type PairedRow = [...Row, endId: string, endTime: number, endLine: string];

/** The start of a core event line, by the event. */
const START = '{"event":"start"';
const EXIT = '{"event":"exit"';

/** True for a process's own core event (not the core's, whose pid is `core`) of this kind. */
function isEvent(r: Row, prefix: string): boolean {
  return r[4] === "core" && r[2] !== "core" && r[5].startsWith(prefix);
}

/**
 * The rows of a batch as written: each `exit` whose process's `start` is
 * in the same batch (at most {@link PAIR_MS} before it) goes into that row,
 * the rest as they are. The batch itself is left as it was.
 */
export function pairExits(batch: Row[]): (Row | PairedRow)[] {
  let starts: Map<string, number> | undefined;
  const out: (Row | PairedRow)[] = [];
  for (const r of batch) {
    if (isEvent(r, START)) {
      (starts ??= new Map()).set(r[2], out.length);
    } else if (starts !== undefined && isEvent(r, EXIT)) {
      const at = starts.get(r[2]);
      const start = at === undefined ? undefined : out[at];
      if (start !== undefined && start.length === 9 && r[1] - start[1] <= PAIR_MS) {
        out[at!] = [...start, r[0], r[1], r[5]];
        starts.delete(r[2]);
        continue;
      }
    }
    out.push(r);
  }
  return out;
}
