/**
 * The journal (section 8): every line a process writes that is not a JSON-RPC
 * message, every stderr line, and the core's own events, in SQLite at
 * `state/core/journal.sqlite`. Only the core writes it; writes are batched in
 * one transaction every few milliseconds so a call stays cheap.
 *
 * @module
 */

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { uuidFloor, uuidv7 } from "./uuid.ts";

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
  line: string;
}

/** The filters of `core.log`. `since`/`until` are ISO times, epoch ms, or entry ids. */
export interface LogFilter {
  plugin?: string;
  pid?: string;
  since?: string | number;
  until?: string | number;
  grep?: string;
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
  line TEXT NOT NULL
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

/** Queries the journal table of an open database. */
export function queryJournal(db: DatabaseSync, f: LogFilter): Entry[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (f.plugin) (where.push("plugin = ?"), args.push(f.plugin));
  if (f.pid) (where.push("pid = ?"), args.push(f.pid));
  if (f.since !== undefined) (where.push("id >= ?"), args.push(bound(f.since)));
  if (f.until !== undefined) (where.push("id < ?"), args.push(bound(f.until)));
  if (f.grep) (where.push("instr(line, ?) > 0"), args.push(f.grep));
  const limit = Math.min(Math.max(1, Math.floor(f.limit ?? LOG_LIMIT.default)), LOG_LIMIT.max);
  const sql = `SELECT id, time, pid, plugin, stream, line FROM journal
    ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY id DESC LIMIT ${limit}`;
  const rows = db.prepare(sql).all(...args) as unknown as Entry[];
  return rows.reverse();
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
    return queryJournal(db, f);
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

/** Opens a journal database and checks that it can be read and written. */
function openDatabase(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
    );
    db.exec(SCHEMA);
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

/** The journal of a running host. */
export class Journal {
  private db!: DatabaseSync;
  private insert!: StatementSync;
  private pending: Entry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the file could not be used and was replaced by a new one. */
  recovered: JournalRecovery | null = null;

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
  ) {
    try {
      this.use(openDatabase(path));
    } catch (e) {
      if (path === ":memory:" || !isDamaged(e)) throw e;
      this.replace(e);
    }
  }

  private use(db: DatabaseSync): void {
    this.db = db;
    this.insert = db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line) VALUES (?, ?, ?, ?, ?, ?)",
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

  /** Appends an entry; it reaches the file within a few milliseconds. */
  append(pid: string, plugin: string, stream: Stream, line: string): Entry {
    const entry = this.entry(pid, plugin, stream, line);
    this.pending.push(entry);
    if (this.pending.length >= 1000) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 5);
    return entry;
  }

  /**
   * Writes every pending entry in one transaction. When the file turns out
   * to be damaged, it is replaced (see the constructor) and the entries go
   * to the new one; other errors are reported and the entries kept for the
   * next flush.
   */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    for (let attempt = 0;; attempt++) {
      try {
        this.write(batch);
        return;
      } catch (e) {
        if (attempt === 0 && this.path !== ":memory:" && isDamaged(e)) {
          try {
            this.db.close();
          } catch { /* already unusable */ }
          this.replace(e);
          batch.unshift(...this.pending.splice(0));
          continue;
        }
        this.pending.unshift(...batch);
        this.report(`sausage: journal write failed: ${e instanceof Error ? e.message : e}`);
        return;
      }
    }
  }

  private write(batch: Entry[]): void {
    this.db.exec("BEGIN");
    try {
      for (const e of batch) this.insert.run(e.id, e.time, e.pid, e.plugin, e.stream, e.line);
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

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    this.db.close();
  }
}
