/**
 * The bound of one journal entry (`journal_entry_kib` in `config/limits.json`):
 * a line over it is kept as a prefix with its full length, so a call with 5 MB
 * of params, or a guest's 10 MB line, costs the journal a few KiB, not its
 * size. A plain line (stdout, stderr) keeps its first bytes and ends with
 * `… [truncated: N bytes in all]`; an event of the core (a JSON object) stays
 * a JSON object with the same fields, each big field replaced by
 * `{"truncated": true, "bytes": N, "prefix": "…"}`.
 *
 * Only lines that may pass the bound are measured: one length compare on the
 * call path.
 *
 * @module
 */

import { parseExact } from "../../rpc/exact_json.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The first `max` bytes of `text` as text (never a broken character), and its byte length. */
export function bytePrefix(text: string, max: number): { prefix: string; bytes: number } {
  const all = encoder.encode(text);
  if (all.length <= max) return { prefix: text, bytes: all.length };
  let end = max;
  while (end > 0 && (all[end] & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
  return { prefix: decoder.decode(all.subarray(0, end)), bytes: all.length };
}

/** A big field of an event, as the journal keeps it. */
function truncatedField(json: string, keep: number) {
  const { prefix, bytes } = bytePrefix(json, keep);
  return { truncated: true, bytes, prefix };
}

/**
 * The line as the journal keeps it: itself when it is at most `maxBytes`
 * bytes of UTF-8, else its bounded form (see the module's doc).
 */
export function boundEntry(stream: string, line: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: shorter lines are within the bound.
  if (line.length * 3 <= maxBytes) return line;
  const { prefix, bytes } = bytePrefix(line, maxBytes);
  if (bytes <= maxBytes) return line;
  const note = `[truncated: ${bytes} bytes in all]`;
  if (stream !== "core") return `${bytePrefix(prefix, maxBytes - 64).prefix}… ${note}`;
  // An event of the core: the same fields, the big ones cut (a rare path: parsing is fine).
  let event: unknown;
  try {
    event = parseExact(line);
  } catch { /* not JSON */ }
  if (typeof event === "object" && event !== null && !Array.isArray(event)) {
    const fields = Object.entries(event as Record<string, unknown>);
    const keep = Math.max(64, Math.floor(maxBytes / (2 * fields.length)));
    const bounded: Record<string, unknown> = {};
    for (const [key, value] of fields) {
      const json = JSON.stringify(value) ?? "null";
      bounded[key] = json.length > keep ? truncatedField(json, keep) : value;
    }
    const text = JSON.stringify(bounded);
    if (text.length * 3 <= maxBytes || encoder.encode(text).length <= maxBytes) return text;
  }
  return JSON.stringify({ event: "truncated", ...truncatedField(line, maxBytes / 2) });
}
