/**
 * The journal's reading side: its entries and filters (`core.log`, PROTOCOL
 * 8), and the query that reads them from the table, older files included.
 *
 * @module
 */

import type { DatabaseSync, SQLOutputValue } from "node:sqlite";
import { uuidFloor } from "../processes/uuid.ts";
import { isLevel, type Level, levelsFrom } from "./log_event.ts";
import { parseExact } from "../../rpc/exact_json.ts";
import { PAIR_MS } from "./exit_pairs.ts";

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

/** Converts a `since`/`until` bound to an id bound. */
function bound(v: string | number): string {
  if (typeof v === "number") return uuidFloor(v);
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(v)) return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new Error(`not a time or entry id: ${v}`);
  return uuidFloor(ms);
}

/** A `fields` key as a JSON path (`$."key"`). */
function fieldPath(key: string): string {
  return `$.${JSON.stringify(key)}`;
}

/** What a journal table has beyond its first columns (an older file lacks some). */
export interface JournalColumns {
  /** `level`, `fields`, `span`: structured events. */
  events: boolean;
  /** `end_id`, `end_time`, `end_line`: exits written in their start's row (`exit_pairs.ts`). */
  pairs: boolean;
}

/** The milliseconds of a UUIDv7 (its first 48 bits). */
function idTime(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * Queries the journal table of an open database. A row that holds a
 * process's exit as well as its start (`exit_pairs.ts`) gives two entries,
 * each filtered on its own: the starts and other rows are read first, then
 * the exits that could be among the newest of them (written in rows at most
 * `PAIR_MS` older than the oldest entry read), so `limit` keeps the newest
 * entries as it would with a row each.
 */
export function queryJournal(
  db: DatabaseSync,
  f: LogFilter,
  columns: JournalColumns = { events: true, pairs: true },
): Entry[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const ends: string[] = ["end_id IS NOT NULL"];
  const endArgs: (string | number)[] = [];
  if (f.plugin) {
    where.push("plugin = ?"), args.push(f.plugin);
    ends.push("plugin = ?"), endArgs.push(f.plugin);
  }
  if (f.pid) {
    where.push("pid = ?"), args.push(f.pid);
    ends.push("pid = ?"), endArgs.push(f.pid);
  }
  if (f.since !== undefined) {
    const since = bound(f.since);
    where.push("id >= ?"), args.push(since);
    ends.push("id >= ?", "end_id >= ?"), endArgs.push(uuidFloor(idTime(since) - PAIR_MS), since);
  }
  if (f.until !== undefined) {
    const until = bound(f.until);
    where.push("id < ?"), args.push(until);
    ends.push("id < ?", "end_id < ?"), endArgs.push(until, until);
  }
  if (f.grep) {
    where.push("instr(line, ?) > 0"), args.push(f.grep);
    ends.push("instr(end_line, ?) > 0"), endArgs.push(f.grep);
  }
  // An exit is a plain core line: no level, no fields.
  let exits = columns.pairs;
  if (f.level !== undefined) {
    if (!isLevel(f.level)) {
      throw new Error(`not a level: ${f.level} (trace, debug, info, warn, error)`);
    }
    if (!columns.events) return [];
    const levels = levelsFrom(f.level);
    where.push(`level IN (${levels.map(() => "?").join(", ")})`);
    args.push(...levels);
    exits = false;
  }
  for (const [key, value] of Object.entries(f.fields ?? {})) {
    if (!columns.events) return [];
    where.push("json_extract(fields, ?) IS json_extract(?, '$')");
    args.push(fieldPath(key), JSON.stringify(value));
    exits = false;
  }
  const limit = Math.min(Math.max(1, Math.floor(f.limit ?? LOG_LIMIT.default)), LOG_LIMIT.max);
  const rest = columns.events ? ", level, fields, span" : "";
  const sql = `SELECT id, time, pid, plugin, stream, line${rest} FROM journal
    ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY id DESC LIMIT ${limit}`;
  const entries = db.prepare(sql).all(...args).map(toEntry);
  if (!exits) return entries.reverse();
  // The exits of rows that could be among the newest `limit` entries.
  if (entries.length === limit) {
    ends.push("id >= ?"), endArgs.push(uuidFloor(idTime(entries[limit - 1].id) - PAIR_MS));
  }
  const found = db.prepare(
    `SELECT end_id AS id, end_time AS time, pid, plugin, stream, end_line AS line FROM journal
    WHERE ${ends.join(" AND ")} ORDER BY end_id DESC LIMIT ${limit}`,
  ).all(...endArgs).map(toEntry);
  if (found.length === 0) return entries.reverse();
  return [...entries, ...found].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    .slice(-limit);
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
