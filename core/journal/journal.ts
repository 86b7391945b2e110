/**
 * The journal (section 8): every line a process writes that is not a JSON-RPC
 * message, every stderr line, and the core's own events, in SQLite at
 * `state/core/journal.sqlite`. Only the core writes it, and not on its event
 * loop: entries go to a worker with its own connection (`journal_sink.ts`,
 * `journal_writer.ts`), written in one transaction every few milliseconds.
 * A read (`core.log`, `sausage log`, `/proc`) waits until every entry
 * appended before it is written, then reads on this thread. It is bounded by
 * size and age (`journal_mib`, `journal_days` in `config/limits.json`): the
 * oldest entries go first.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { uuidv7 } from "../processes/uuid.ts";
import type { JournalHealthView } from "./journal_health.ts";
import { boundEntry } from "./journal_entry.ts";
import type { LogEvent } from "./log_event.ts";
import {
  hasEventColumns,
  hasPairColumns,
  isDamaged,
  type JournalRecovery,
  openDatabase,
  openOrRecover,
} from "./journal_file.ts";
import type { DiskState, JournalBounds, WriterEvents } from "./journal_writer.ts";
import type { Row } from "./journal_row.ts";
import { InlineSink, type JournalSink, WorkerSink } from "./journal_sink.ts";

export type { DiskState, JournalBounds } from "./journal_writer.ts";
export type { JournalRecovery } from "./journal_file.ts";

import { type Entry, type LogFilter, queryJournal, type Stream } from "./journal_query.ts";
export { type Entry, LOG_LIMIT, type LogFilter, type Stream } from "./journal_query.ts";

/** Opens a journal file for reading only (the CLI without a running host). */
export function readJournal(path: string, f: LogFilter): Entry[] {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch {
    return [];
  }
  try {
    return queryJournal(db, f, { events: hasEventColumns(db), pairs: hasPairColumns(db) });
  } catch (e) {
    if (String(e).includes("no such table")) return [];
    if (isDamaged(e)) {
      throw new Error(
        `the journal ${path} is damaged (${
          e instanceof Error ? e.message : e
        }); the next host start moves it aside and starts a new one`,
      );
    }
    throw e;
  } finally {
    db.close();
  }
}

/** The default bound of one entry (`journal_entry_kib`). */
export const DEFAULT_ENTRY_BYTES = 64 * 1024;

/** The window of a coalesced event (`coalescedEvent`): one entry with a count per window. */
export const COALESCE_MS = 1000;

/** A coalesced event's current window. */
interface Window {
  event: string;
  count: number;
  fields: Record<string, unknown>;
  timer: ReturnType<typeof setTimeout>;
}

/** No bounds (an in-memory journal, tests of other things). */
const UNBOUNDED: JournalBounds = { maxBytes: Infinity, maxAgeMs: Infinity };

/** An entry as the writer's row. */
function toRow(e: Entry): Row {
  return [
    e.id,
    e.time,
    e.pid,
    e.plugin,
    e.stream,
    e.line,
    e.level ?? null,
    e.fields ? JSON.stringify(e.fields) : null,
    e.span ?? null,
  ];
}

/** Why the host refuses new calls for the journal's disk (PROTOCOL 4.9, `journal_reserve_mib`). */
export interface DiskRefusal {
  /** The disk's state (never `ok`). */
  state: Exclude<DiskState, "ok">;
  /** The folder of the journal, on the disk that is full. */
  disk: string;
  /** The reserve's size, in bytes. */
  reserveBytes: number;
}

/** The journal of a running host. */
export class Journal {
  /** The connection reads go through (for an in-memory journal, the writer's). */
  private db: DatabaseSync;
  private sink: JournalSink;
  /** The writer's file generation `db` was opened at. */
  private generation = 0;
  /** Set when the file could not be used and was replaced by a new one. */
  recovered: JournalRecovery | null = null;
  private healthView: JournalHealthView = {
    write_failures: 0,
    dropped_entries: 0,
    failing_since: null,
    last_error: null,
  };
  /** How writes go (`/proc/core/journal.json`): a full disk pauses them, counted. */
  readonly health = { view: (): JournalHealthView => this.healthView };
  private readonly maxEntryBytes: number;
  private readonly reserveBytes: number;
  /** The open windows of coalesced events, by key. */
  private windows = new Map<string, Window>();

  /**
   * Opens (and creates) the journal file. A file SQLite cannot use (damaged,
   * overwritten) is moved aside to `journal.sqlite.damaged-<time>`, a new
   * journal starts, and its first entry says so (`report` gets the same as
   * one line, for stderr). The same happens when a write or a read finds the
   * open file damaged: the host keeps running.
   */
  constructor(
    private path: string,
    private report: (line: string) => void = (l) => console.error(l),
    bounds: JournalBounds = UNBOUNDED,
  ) {
    this.maxEntryBytes = bounds.maxEntryBytes ?? DEFAULT_ENTRY_BYTES;
    this.reserveBytes = bounds.reserveBytes ?? 0;
    const { db, recovered } = openOrRecover(path, report);
    this.db = db;
    const on: WriterEvents = {
      report: (line) => this.report(line),
      health: (view) => (this.healthView = view),
      recovered: (r) => (this.recovered = r),
    };
    if (path === ":memory:") {
      this.sink = new InlineSink(db, path, bounds, on);
      this.sink.prune();
    } else this.sink = new WorkerSink(db, path, bounds, on);
    if (recovered) {
      this.recovered = recovered;
      this.coreEvent("journal-recovered", { ...recovered });
    }
  }

  /**
   * Drops entries older than `maxAgeMs`, then the oldest entries while the
   * pages in use pass `maxBytes` (down to 90 % of it). Returns how many went.
   */
  prune(): number {
    return this.sink.prune();
  }

  private entry(pid: string, plugin: string, stream: Stream, line: string): Entry {
    const now = Date.now();
    return { id: uuidv7(now), time: now, pid, plugin, stream, line };
  }

  /** Journals an event of the core itself (pid, plugin and stream `core`): `{event, ...fields}`. */
  coreEvent(event: string, fields: Record<string, unknown> = {}): Entry {
    return this.append("core", "core", "core", JSON.stringify({ event, ...fields }));
  }

  /**
   * Journals an event that may repeat fast (a refused spawn of a process
   * bomb): the first at once with `count: 1`, then at most one entry per
   * {@link COALESCE_MS} for the same `key`, with `count` (how many there were
   * in that window) and the fields of the last one.
   */
  coalescedEvent(event: string, key: string, fields: Record<string, unknown>): void {
    const open = this.windows.get(key);
    if (open) {
      open.count++;
      open.fields = fields;
      return;
    }
    this.coreEvent(event, { ...fields, count: 1 });
    this.openWindow(event, key, fields);
  }

  private openWindow(event: string, key: string, fields: Record<string, unknown>): void {
    const w: Window = {
      event,
      count: 0,
      fields,
      timer: setTimeout(() => {
        this.windows.delete(key);
        if (w.count === 0) return;
        this.coreEvent(event, { ...w.fields, count: w.count, window_ms: COALESCE_MS });
        this.openWindow(event, key, w.fields); // still repeating: count on
      }, COALESCE_MS),
    };
    Deno.unrefTimer(w.timer);
    this.windows.set(key, w);
  }

  /** Writes the counts of the open windows (at close). */
  private closeWindows(): void {
    for (const [key, w] of this.windows) {
      clearTimeout(w.timer);
      this.windows.delete(key);
      if (w.count) {
        this.coreEvent(w.event, { ...w.fields, count: w.count, window_ms: COALESCE_MS });
      }
    }
  }

  /**
   * Appends an entry (a structured event when `event` is given: its message
   * is the line; a line over `maxEntryBytes` kept as a prefix with its length:
   * `journal_entry.ts`); it reaches the file within a few milliseconds.
   */
  append(pid: string, plugin: string, stream: Stream, line: string, event?: LogEvent): Entry {
    const entry = this.entry(
      pid,
      plugin,
      stream,
      boundEntry(stream, event ? event.message : line, this.maxEntryBytes),
    );
    if (event) {
      entry.level = event.level;
      if (event.fields) entry.fields = event.fields;
      if (event.span) entry.span = event.span;
    }
    this.sink.add(toRow(entry));
    return entry;
  }

  /**
   * Null while the journal's disk takes what the host acknowledges; else
   * why not: the disk filled and the journal writes into its reserve, the
   * reserve could not be made, or writes fail. The host then refuses new
   * calls (-32004), so no answer goes out with its entries only in memory.
   * Read without waiting for the writer.
   */
  diskRefusal(): DiskRefusal | null {
    const state = this.sink.disk();
    if (state === "ok") return null;
    return {
      state,
      disk: this.path.slice(0, this.path.lastIndexOf("/")) || ".",
      reserveBytes: this.reserveBytes,
    };
  }

  /** Writes every entry appended so far now (or, while writes fail, keeps them to retry). */
  flush(): void {
    this.sink.sync();
  }

  /** `core.log`: the entries that match, oldest first; it sees every entry appended before. */
  query(f: LogFilter): Entry[] {
    this.flush();
    this.followReplacement();
    try {
      return queryJournal(this.db, f);
    } catch (e) {
      if (this.path === ":memory:" || !isDamaged(e)) throw e;
      this.sink.repair(e);
      this.followReplacement();
      return queryJournal(this.db, f);
    }
  }

  /** Opens the file again after the writer replaced it. */
  private followReplacement(): void {
    const g = this.sink.generation;
    if (g === this.generation || this.path === ":memory:") return;
    try {
      this.db.close();
    } catch { /* already unusable */ }
    this.db = openDatabase(this.path);
    this.generation = g;
  }

  /** Flushes (one last try, even while writes fail) and closes the file. */
  close(): void {
    this.closeWindows();
    this.sink.close();
    if (this.path !== ":memory:") this.db.close();
  }
}
