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
    throw e;
  } finally {
    db.close();
  }
}

/** The journal of a running host. */
export class Journal {
  private db: DatabaseSync;
  private insert: StatementSync;
  private pending: Entry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Opens (and creates) the journal file. */
  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec(
      "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
    );
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  /** Appends an entry; it reaches the file within a few milliseconds. */
  append(pid: string, plugin: string, stream: Stream, line: string): Entry {
    const now = Date.now();
    const entry = { id: uuidv7(now), time: now, pid, plugin, stream, line };
    this.pending.push(entry);
    if (this.pending.length >= 1000) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 5);
    return entry;
  }

  /** Writes every pending entry in one transaction. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.db.exec("BEGIN");
    try {
      for (const e of batch) this.insert.run(e.id, e.time, e.pid, e.plugin, e.stream, e.line);
      this.db.exec("COMMIT");
    } catch (e) {
      this.db.exec("ROLLBACK");
      throw e;
    }
  }

  /** `core.log`: the entries that match, oldest first. */
  query(f: LogFilter): Entry[] {
    this.flush();
    return queryJournal(this.db, f);
  }

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    this.db.close();
  }
}
