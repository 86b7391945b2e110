/**
 * The journal (section 8): every line a process writes that is not a JSON-RPC
 * message, every stderr line, and the core's own events, in SQLite at
 * `state/core/journal.sqlite`. Only the core writes it; writes are batched in
 * one transaction every few milliseconds so a call stays cheap. It is bounded
 * by size and age (`journal_mib`, `journal_days` in `config/limits.json`):
 * the oldest entries go first.
 *
 * @module
 */

import { DatabaseSync, type SQLOutputValue, type StatementSync } from "node:sqlite";
import { uuidFloor, uuidv7 } from "./uuid.ts";
import { JournalHealth } from "./journal_health.ts";
import { boundEntry } from "./journal_entry.ts";
import { isLevel, type Level, levelsFrom, type LogEvent } from "./log_event.ts";
import { parseExact } from "../rpc/exact_json.ts";

/** The stream an entry came from. */
export type Stream = "stdout" | "stderr" | "core";

/** One journal entry. */
export interface Entry {
  /** UUIDv7: sorts by time. */
  id: string;
  /** Milliseconds since the epoch. */
  time: number;
  pid: string;
  plugin: string;
  stream: Stream;
  /** The line; for a structured event (PROTOCOL 8), its message. */
  line: string;
  /** A structured event's level (absent on plain lines). */
  level?: Level;
  /** A structured event's fields, with its spans' (absent when none). */
  fields?: Record<string, unknown>;
  /** A structured event's spans, outermost first, joined by `:` (absent when none). */
  span?: string;
}

/** The filters of `core.log`. `since`/`until` are ISO times, epoch ms, or entry ids. */
export interface LogFilter {
  plugin?: string;
  pid?: string;
  since?: string | number;
  until?: string | number;
  grep?: string;
  /** Structured events at this level or above (plain lines have none and are left out). */
  level?: Level;
  /** Structured events whose fields hold each of these values (JSON equality). */
  fields?: Record<string, unknown>;
  limit?: number;
}

/** The default and largest number of entries one query returns. */
export const LOG_LIMIT = { default: 100, max: 10_000 };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  id TEXT PRIMARY KEY,
  time INTEGER NOT NULL,
  pid TEXT NOT NULL,
  plugin TEXT NOT NULL,
  stream TEXT NOT NULL,
  line TEXT NOT NULL,
  level TEXT,
  fields TEXT,
  span TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS journal_pid ON journal (pid, id);
CREATE INDEX IF NOT EXISTS journal_plugin ON journal (plugin, id);
`;

/** Converts a `since`/`until` bound to an id bound. */
function bound(v: string | number): string {
  if (typeof v === "number") return uuidFloor(v);
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(v)) return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new Error(`not a time or entry id: ${v}`);
  return uuidFloor(ms);
}

/** The columns of structured events, added to a journal made before them. */
const EVENT_COLUMNS = ["level", "fields", "span"];

/** Adds the event columns to an older journal table (a host opened it for writing). */
function addEventColumns(db: DatabaseSync): void {
  const have = new Set(
    db.prepare("PRAGMA table_info(journal)").all().map((r) => String(r.name)),
  );
  for (const c of EVENT_COLUMNS) {
    if (!have.has(c)) db.exec(`ALTER TABLE journal ADD COLUMN ${c} TEXT`);
  }
}

/** True when the journal table has the event columns (a read-only open of an older file). */
function hasEventColumns(db: DatabaseSync): boolean {
  const names = db.prepare("PRAGMA table_info(journal)").all().map((r) => String(r.name));
  return EVENT_COLUMNS.every((c) => names.includes(c));
}

/** A `fields` key as a JSON path (`$."key"`). */
function fieldPath(key: string): string {
  return `$.${JSON.stringify(key)}`;
}

/** Queries the journal table of an open database. */
function queryJournal(db: DatabaseSync, f: LogFilter, events = true): Entry[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.plugin) (where.push("plugin = ?"), args.push(f.plugin));
  if (f.pid) (where.push("pid = ?"), args.push(f.pid));
  if (f.since !== undefined) (where.push("id >= ?"), args.push(bound(f.since)));
  if (f.until !== undefined) (where.push("id < ?"), args.push(bound(f.until)));
  if (f.grep) (where.push("instr(line, ?) > 0"), args.push(f.grep));
  if (f.level !== undefined) {
    if (!isLevel(f.level)) {
      throw new Error(`not a level: ${f.level} (trace, debug, info, warn, error)`);
    }
    if (!events) return [];
    const levels = levelsFrom(f.level);
    where.push(`level IN (${levels.map(() => "?").join(", ")})`);
    args.push(...levels);
  }
  for (const [key, value] of Object.entries(f.fields ?? {})) {
    if (!events) return [];
    where.push("json_extract(fields, ?) IS json_extract(?, '$')");
    args.push(fieldPath(key), JSON.stringify(value));
  }
  const limit = Math.min(Math.max(1, Math.floor(f.limit ?? LOG_LIMIT.default)), LOG_LIMIT.max);
  const columns = events ? ", level, fields, span" : "";
  const sql = `SELECT id, time, pid, plugin, stream, line${columns} FROM journal
    ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY id DESC LIMIT ${limit}`;
  return db.prepare(sql).all(...args).map(toEntry).reverse();
}

/** A row of the journal table as an entry; throws on a row of another shape (not our table). */
function toEntry(row: Record<string, SQLOutputValue>): Entry {
  const { id, time, pid, plugin, stream, line, level, fields, span } = row;
  if (
    typeof id === "string" && typeof time === "number" && typeof pid === "string" &&
    typeof plugin === "string" &&
    (stream === "stdout" || stream === "stderr" || stream === "core") &&
    typeof line === "string"
  ) {
    const entry: Entry = { id, time, pid, plugin, stream, line };
    if (isLevel(level)) entry.level = level;
    if (typeof fields === "string") entry.fields = parseExact(fields) as Record<string, unknown>;
    if (typeof span === "string") entry.span = span;
    return entry;
  }
  throw new Error(`the journal has a row of an unknown shape: ${JSON.stringify(row)}`);
}

/** Opens a journal file for reading only (the CLI without a running host). */
export function readJournal(path: string, f: LogFilter): Entry[] {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch {
    return [];
  }
  try {
    return queryJournal(db, f, hasEventColumns(db));
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

/** Where a journal that could not be opened was moved, and why. */
export interface JournalRecovery {
  /** The new name of the old file. */
  movedTo: string;
  /** SQLite's error. */
  error: string;
}

/**
 * Makes the journal file owner-only (0600) before SQLite opens it: made so
 * when missing, tightened when looser (SQLite gives its -wal and -shm files
 * the mode of the database file).
 */
function ownerOnly(path: string): void {
  if (path === ":memory:") return;
  try {
    Deno.openSync(path, { write: true, createNew: true, mode: 0o600 }).close();
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    const mode = Deno.statSync(path).mode ?? 0;
    if ((mode & 0o077) !== 0) Deno.chmodSync(path, mode & 0o700);
  }
}

/** Opens a journal database and checks that it can be read and written. */
function openDatabase(path: string): DatabaseSync {
  ownerOnly(path);
  const db = new DatabaseSync(path);
  try {
    db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
    );
    db.exec(SCHEMA);
    addEventColumns(db);
    db.prepare("SELECT id FROM journal ORDER BY id DESC LIMIT 1").get();
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** True for SQLite's errors that mean the file is not a usable database (not a busy lock). */
function isDamaged(e: unknown): boolean {
  return /malformed|not a database|file is encrypted|disk I\/O error|corrupt/i.test(String(e));
}

/** Moves a damaged journal (with its -wal and -shm files) aside; returns the new name. */
function moveAside(path: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const to = `${path}.damaged-${stamp}`;
  Deno.renameSync(path, to);
  for (const suffix of ["-wal", "-shm"]) {
    try {
      Deno.renameSync(path + suffix, to + suffix);
    } catch { /* absent */ }
  }
  return to;
}

/** How much a journal may hold. */
export interface JournalBounds {
  /** The most bytes of database pages in use (the file stays near this size). */
  maxBytes: number;
  /** Entries older than this (ms) are dropped. */
  maxAgeMs: number;
  /**
   * The most bytes of one entry's line (`journal_entry_kib`): a longer one is
   * kept as a prefix with its full length (`journal_entry.ts`). Default 64 KiB.
   */
  maxEntryBytes?: number;
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

/** SQLite needs about four bytes of file per byte of line (keys, two indexes): measured 3.9x. */
const BYTES_PER_LINE_BYTE = 4;

/** After pruning, the journal holds at most this share of `maxBytes`, so pruning is not constant. */
const PRUNE_TO = 0.9;

/** The journal of a running host. */
export class Journal {
  private db!: DatabaseSync;
  private insert!: StatementSync;
  private pending: Entry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Estimated bytes written since the bounds were last checked. */
  private sinceCheck = 0;
  private lastAgeCheck = 0;
  /** Set when the file could not be used and was replaced by a new one. */
  recovered: JournalRecovery | null = null;
  /** How writes go: a full disk pauses them, counted, instead of a loop of retries. */
  readonly health: JournalHealth;
  /** The file was moved aside but no new one could be made: made at the next try. */
  private reopen = false;
  private readonly maxEntryBytes: number;
  /** The open windows of coalesced events, by key. */
  private windows = new Map<string, Window>();

  /**
   * Opens (and creates) the journal file. A file SQLite cannot use (damaged,
   * overwritten) is moved aside to `journal.sqlite.damaged-<time>`, a new
   * journal starts, and its first entry says so (`report` gets the same as
   * one line, for stderr). The same happens when a write finds the open file
   * damaged: the host keeps running.
   */
  constructor(
    private path: string,
    private report: (line: string) => void = (l) => console.error(l),
    private bounds: JournalBounds = UNBOUNDED,
  ) {
    this.health = new JournalHealth(report);
    this.maxEntryBytes = bounds.maxEntryBytes ?? DEFAULT_ENTRY_BYTES;
    try {
      this.use(openDatabase(path));
    } catch (e) {
      if (path === ":memory:" || !isDamaged(e)) throw e;
      this.replace(e);
    }
    this.prune();
  }

  /**
   * Drops entries older than `maxAgeMs`, then the oldest entries while the
   * pages in use pass `maxBytes` (down to 90 % of it). Returns how many went.
   */
  prune(): number {
    let dropped = 0;
    const now = Date.now();
    this.lastAgeCheck = now;
    this.sinceCheck = 0;
    if (Number.isFinite(this.bounds.maxAgeMs)) {
      const r = this.db.prepare("DELETE FROM journal WHERE id < ?")
        .run(uuidFloor(now - this.bounds.maxAgeMs));
      dropped += Number(r.changes);
    }
    if (!Number.isFinite(this.bounds.maxBytes)) return dropped;
    const target = this.bounds.maxBytes * PRUNE_TO;
    for (let used = this.usedBytes(); used > this.bounds.maxBytes;) {
      const rows = Number(
        (this.db.prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n,
      );
      if (rows === 0) break;
      const n = Math.max(1, Math.ceil(rows * (used - target) / used));
      const r = this.db.prepare(
        "DELETE FROM journal WHERE id IN (SELECT id FROM journal ORDER BY id LIMIT ?)",
      ).run(n);
      dropped += Number(r.changes);
      const after = this.usedBytes();
      if (after >= used) break; // nothing more to gain
      used = after;
      if (used <= target) break;
    }
    return dropped;
  }

  /** Prunes after about 1/16 of `maxBytes` was written, or an hour after the last time. */
  private pruneWhenDue(): void {
    const due = this.sinceCheck > this.bounds.maxBytes / 16 ||
      Date.now() - this.lastAgeCheck > 3_600_000;
    if (!due) return;
    try {
      this.prune();
    } catch (e) {
      this.report(`sausage: journal pruning failed: ${e instanceof Error ? e.message : e}`);
    }
  }

  /** Bytes of database pages that hold data (free pages are reused before the file grows). */
  private usedBytes(): number {
    const pragma = (name: string) =>
      Number(Object.values(this.db.prepare(`PRAGMA ${name}`).get() as object)[0]);
    return (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
  }

  private use(db: DatabaseSync): void {
    this.db = db;
    this.insert = db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line, level, fields, span) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
  }

  /** Moves the damaged file aside, starts a new one and records why. */
  private replace(error: unknown): void {
    const movedTo = moveAside(this.path);
    this.use(openDatabase(this.path));
    this.recovered = { movedTo, error: error instanceof Error ? error.message : String(error) };
    this.report(
      `sausage: the journal ${this.path} could not be used (${this.recovered.error}); ` +
        `it was moved to ${movedTo} and a new journal started`,
    );
    this.pending.unshift({
      ...this.entry("core", "core", "core", ""),
      line: JSON.stringify({ event: "journal-recovered", ...this.recovered }),
    });
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
    this.pending.push(entry);
    if (this.pending.length >= 1000 && this.health.due()) this.flush();
    else if (this.pending.length > 1000) this.pending = this.health.bound(this.pending);
    this.timer ??= setTimeout(() => this.flush(), Math.max(5, this.health.wait()));
    return entry;
  }

  /**
   * Writes every pending entry in one transaction. When the file turns out
   * to be damaged, it is replaced (see the constructor) and the entries go
   * to the new one; other errors (a full disk) are counted (`health`) and the
   * entries kept for the next try, which waits a growing pause.
   */
  flush(force = false): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    if (!force && !this.health.due()) {
      this.timer = setTimeout(() => this.flush(), this.health.wait());
      return;
    }
    const batch = this.pending;
    this.pending = [];
    for (let attempt = 0;; attempt++) {
      try {
        if (this.reopen) {
          this.use(openDatabase(this.path));
          this.reopen = false;
        }
        this.write(batch);
        const streak = this.health.succeeded();
        if (streak) this.coreEvent("journal-writes-resumed", { ...streak });
        this.pruneWhenDue();
        return;
      } catch (first) {
        let e = first;
        if (attempt === 0 && this.path !== ":memory:" && isDamaged(e)) {
          try {
            this.db.close();
          } catch { /* already unusable */ }
          try {
            this.replace(e);
          } catch (again) {
            // No room for a new file either: opened again at the next try.
            this.reopen = true;
            e = again;
          }
          if (!this.reopen) {
            batch.unshift(...this.pending.splice(0));
            continue;
          }
        }
        this.pending = this.health.bound([...batch, ...this.pending]);
        this.health.failed(e);
        this.timer = setTimeout(() => this.flush(), this.health.wait());
        return;
      }
    }
  }

  private write(batch: Entry[]): void {
    this.db.exec("BEGIN");
    try {
      for (const e of batch) {
        const fields = e.fields ? JSON.stringify(e.fields) : null;
        this.insert.run(
          e.id,
          e.time,
          e.pid,
          e.plugin,
          e.stream,
          e.line,
          e.level ?? null,
          fields,
          e.span ?? null,
        );
        this.sinceCheck += (e.line.length + (fields?.length ?? 0) + e.pid.length + 80) *
          BYTES_PER_LINE_BYTE;
      }
      this.db.exec("COMMIT");
    } catch (e) {
      try {
        this.db.exec("ROLLBACK");
      } catch { /* no transaction left */ }
      throw e;
    }
  }

  /** `core.log`: the entries that match, oldest first. */
  query(f: LogFilter): Entry[] {
    this.flush();
    try {
      return queryJournal(this.db, f);
    } catch (e) {
      if (this.path === ":memory:" || !isDamaged(e)) throw e;
      this.db.close();
      this.replace(e);
      this.flush();
      return queryJournal(this.db, f);
    }
  }

  /** Flushes (one last try, even while writes fail) and closes the file. */
  close(): void {
    this.flush(true);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.closeWindows();
    this.flush();
    this.db.close();
  }
}
