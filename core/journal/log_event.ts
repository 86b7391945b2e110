/**
 * Structured log events (PROTOCOL 8, the SDK's `sausage_plugin::log`): a
 * stderr line that starts with the byte 0x1E (ASCII record separator)
 * followed by `{"level", "message", "fields"?, "span"?}` is an event, which
 * the journal keeps as columns. Any other stderr line is a plain line, as
 * before; so is a marked line that is not a valid event (kept whole).
 *
 * @module
 */

import { parseExact } from "../../rpc/exact_json.ts";

/** The levels, least important first. */
export const LEVELS = ["trace", "debug", "info", "warn", "error"] as const;

/** An event's level. */
export type Level = typeof LEVELS[number];

/** The byte that starts an event line. */
export const EVENT_MARKER = "\u001e";

/** The structured part of a journal entry. */
export interface LogEvent {
  level: Level;
  message: string;
  /** The event's fields and those of its spans (a JSON object). */
  fields?: Record<string, unknown>;
  /** The names of its spans, outermost first, joined by `:`. */
  span?: string;
}

/** True for a level's name. */
export function isLevel(v: unknown): v is Level {
  return typeof v === "string" && (LEVELS as readonly string[]).includes(v);
}

/** The levels at `level` or above (what a `level` filter keeps). */
export function levelsFrom(level: Level): Level[] {
  return LEVELS.slice(LEVELS.indexOf(level));
}

/** The event of a stderr line, or null for a plain line. Costs one char test for a plain line. */
export function parseEvent(line: string): LogEvent | null {
  if (line.charCodeAt(0) !== 0x1e) return null;
  let v: unknown;
  try {
    v = parseExact(line.slice(1));
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const { level, message, fields, span } = v as Record<string, unknown>;
  if (!isLevel(level) || typeof message !== "string") return null;
  const event: LogEvent = { level, message };
  if (fields !== undefined) {
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return null;
    if (Object.keys(fields).length) event.fields = fields as Record<string, unknown>;
  }
  if (span !== undefined) {
    if (typeof span !== "string") return null;
    if (span) event.span = span;
  }
  return event;
}

/** The text of a journal entry: an event's {@link eventText}, a plain line as it is. */
export function entryText(
  e: { line: string; level?: Level; fields?: Record<string, unknown>; span?: string },
): string {
  return e.level
    ? eventText({ level: e.level, message: e.line, fields: e.fields, span: e.span })
    : e.line;
}

/**
 * An event as one line of text, as `tracing`'s formatter writes it:
 * `WARN request:db: slow query ms=250 table="notes"` (strings quoted).
 */
export function eventText(e: LogEvent): string {
  const fields = Object.entries(e.fields ?? {})
    .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
    .join("");
  return `${e.level.toUpperCase()} ${e.span ? `${e.span}: ` : ""}${e.message}${fields}`;
}
