/**
 * The process journal: each line of a process (its stdout text, its stderr,
 * the core's events about it) goes to the world's journal within the
 * process's budget (`journal_budget.ts`), to its in-memory lines (-32002,
 * `/proc/<pid>/log`) and to its output handler.
 *
 * @module
 */

import { eventText, parseEvent } from "../journal/log_event.ts";
import type { Journal } from "../journal/journal.ts";
import { JournalBudget } from "../journal/journal_budget.ts";
import type { Process } from "./process.ts";

/** The streams of a process's journal lines. */
export type LogStream = "stdout" | "stderr" | "core";

/** Writes the lines of processes to the journal and to the processes. */
export class ProcessLog {
  /** What each process may still add to the journal. */
  private budgets = new WeakMap<Process, JournalBudget>();

  constructor(
    private journal: Pick<Journal, "append">,
    /** The lines a second a process may journal (`log_lines_per_second`). */
    private linesPerSecond: number,
  ) {}

  /**
   * Writes a line of a process to the journal (within its budget: see
   * `journal_budget.ts`) and to its in-memory log (and to its output handler).
   */
  write(p: Process, stream: LogStream, line: string): void {
    // A structured event (core/journal/log_event.ts): journaled as columns, shown as text.
    const event = stream === "stderr" ? parseEvent(line) : null;
    if (event) line = eventText(event);
    if (stream === "core" || this.budget(p).take()) {
      if (stream !== "core") this.reportDropped(p, false);
      this.journal.append(p.pid, p.plugin, stream, line, event ?? undefined);
    }
    p.remember(stream === "core" ? `[core] ${line}` : line);
    if (stream !== "core") p.onOutput?.(stream, line);
  }

  /** Writes an event of the core about `p` (`start`, `stop`, `kill`, `exit`, …). */
  event(p: Process, event: Record<string, unknown>): void {
    this.write(p, "core", JSON.stringify(event));
  }

  /** `p` has ended: journals how many of its last lines were dropped, if any were. */
  close(p: Process): void {
    this.reportDropped(p, true);
  }

  private budget(p: Process): JournalBudget {
    let b = this.budgets.get(p);
    if (!b) this.budgets.set(p, b = new JournalBudget(this.linesPerSecond));
    return b;
  }

  /** Journals how many lines of `p` were dropped, if any were (see {@link JournalBudget.report}). */
  private reportDropped(p: Process, final: boolean): void {
    const event = this.budgets.get(p)?.report(final);
    if (event) this.journal.append(p.pid, p.plugin, "core", JSON.stringify(event));
  }
}
