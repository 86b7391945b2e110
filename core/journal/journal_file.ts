/**
 * The journal's file: its schema, how it is opened (owner-only, WAL,
 * columns added to an older table), and what happens to a file SQLite
 * cannot use (moved aside). Shared by the writer (`journal_writer.ts`, in
 * its worker) and the readers (`journal.ts`).
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";

/** The journal table and its indexes. */
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
  span TEXT,
  end_id TEXT,
  end_time INTEGER,
  end_line TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS journal_pid ON journal (pid, id);
CREATE INDEX IF NOT EXISTS journal_plugin ON journal (plugin, id);
`;

/** The columns of structured events, added to a journal made before them. */
const EVENT_COLUMNS = ["level", "fields", "span"];

/** The columns of an exit written in its start's row (`exit_pairs.ts`), added likewise. */
const PAIR_COLUMNS = ["end_id", "end_time", "end_line"];

/** Adds the event and pair columns to an older journal table (a host opened it for writing). */
function addEventColumns(db: DatabaseSync): void {
  const have = new Set(
    db.prepare("PRAGMA table_info(journal)").all().map((r) => String(r.name)),
  );
  for (const c of [...EVENT_COLUMNS, ...PAIR_COLUMNS]) {
    const type = c === "end_time" ? "INTEGER" : "TEXT";
    if (!have.has(c)) db.exec(`ALTER TABLE journal ADD COLUMN ${c} ${type}`);
  }
}

/** True when the journal table has the pair columns (a read-only open of an older file has not). */
export function hasPairColumns(db: DatabaseSync): boolean {
  const names = db.prepare("PRAGMA table_info(journal)").all().map((r) => String(r.name));
  return PAIR_COLUMNS.every((c) => names.includes(c));
}

/** True when the journal table has the event columns (a read-only open of an older file). */
export function hasEventColumns(db: DatabaseSync): boolean {
  const names = db.prepare("PRAGMA table_info(journal)").all().map((r) => String(r.name));
  return EVENT_COLUMNS.every((c) => names.includes(c));
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
export function openDatabase(path: string): DatabaseSync {
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
export function isDamaged(e: unknown): boolean {
  return /malformed|not a database|file is encrypted|disk I\/O error|corrupt/i.test(String(e));
}

/** Moves a damaged journal (with its -wal and -shm files) aside; returns the new name. */
export function moveAside(path: string): string {
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

/**
 * Opens the journal file; a file SQLite cannot use is moved aside and a new
 * one started (`recovered` says so; `report` gets one line for stderr).
 */
export function openOrRecover(
  path: string,
  report: (line: string) => void,
): { db: DatabaseSync; recovered: JournalRecovery | null } {
  try {
    return { db: openDatabase(path), recovered: null };
  } catch (e) {
    if (path === ":memory:" || !isDamaged(e)) throw e;
    const recovered = recover(path, e, report);
    return { db: openDatabase(path), recovered };
  }
}

/** Moves a damaged journal aside (after its connection was closed) and says so. */
export function recover(
  path: string,
  error: unknown,
  report: (line: string) => void,
): JournalRecovery {
  const movedTo = moveAside(path);
  const recovered = { movedTo, error: error instanceof Error ? error.message : String(error) };
  report(
    `sausage: the journal ${path} could not be used (${recovered.error}); ` +
      `it was moved to ${movedTo} and a new journal started`,
  );
  return recovered;
}
