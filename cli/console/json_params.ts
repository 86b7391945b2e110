/**
 * The params of a call typed in the console: a JSON object, `{}` when
 * omitted. A syntax error says at which column of the params it is.
 *
 * @module
 */

import { parseExact } from "../../rpc/exact_json.ts";

/** Params, or an error with the 1-based column (in the params text) where it is. */
export type ParsedParams =
  | { ok: true; params: Record<string, unknown> }
  | { ok: false; column: number; message: string };

/** Parses `text` (may be empty) as the params object of a call. */
export function parseParamsText(text: string): ParsedParams {
  if (text.trim() === "") return { ok: true, params: {} };
  let value: unknown;
  try {
    value = parseExact(text); // integers beyond 2^53 kept exactly
  } catch (e) {
    const message = (e as Error).message;
    return { ok: false, column: errorColumn(text), message: describe(message) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const column = text.length - text.trimStart().length + 1;
    return { ok: false, column, message: 'params must be a JSON object, like {"text": "milk"}' };
  }
  return { ok: true, params: value as Record<string, unknown> };
}

/** V8's message without its position (the column is given apart). */
function describe(message: string): string {
  const m = message
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, "")
    .replace(/ after JSON at position \d+.*$/, " after the object")
    .replace(/ in JSON at position \d+.*$/, "")
    .replace(/ \(line \d+ column \d+\)$/, "");
  return m.trim() || "not valid JSON";
}

/**
 * The 1-based column of the character that makes `text` invalid: V8 gives no
 * position for some errors (`Unexpected token 'e', "…" is not valid JSON`),
 * so the shortest prefix that cannot begin valid JSON is searched for.
 */
function errorColumn(text: string): number {
  for (let p = 1; p <= text.length; p++) {
    try {
      JSON.parse(text.slice(0, p));
    } catch (e) {
      if (!incomplete((e as Error).message, p)) return p;
    }
  }
  return text.length + 1;
}

/** Whether an error of `JSON.parse` on a prefix of `length` only says that more is needed. */
function incomplete(message: string, length: number): boolean {
  if (/end of JSON input/.test(message)) return true;
  const pos = /at position (\d+)/.exec(message);
  if (!pos) return false;
  // An escape like \u00 is cut short, not wrong, until its four digits are there.
  const slack = /Unicode escape/.test(message) ? 5 : 0;
  return Number(pos[1]) >= length - slack;
}
