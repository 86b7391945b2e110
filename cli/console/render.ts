/**
 * How the console prints: results indented below the input, errors in red,
 * notifications dimmed, folders in columns.
 *
 * @module
 */

import { ErrorCode } from "../../rpc/errors.ts";
import type { RpcErrorObject } from "../../rpc/message.ts";
import type { Style } from "./style.ts";

/** The indent of everything the console prints below an input. */
const INDENT = "  ";

/** Indents every line of `text`. */
export function indent(text: string, by = INDENT): string {
  return text.split("\n").map((l) => (l === "" ? l : by + l)).join("\n");
}

/** A call's result: JSON, two spaces per level, indented. */
export function renderResult(result: unknown): string {
  return indent(JSON.stringify(result, null, 2) ?? "null");
}

/**
 * A JSON-RPC error: its message in red (a refused activation is readable
 * text already, so its data is left out), then the data dimmed.
 */
export function renderError(e: RpcErrorObject, style: Style): string {
  const [first, ...rest] = String(e.message).split("\n");
  const lines = [style.red(`error ${e.code}: ${first}`), ...rest];
  if (e.data !== undefined && e.code !== ErrorCode.ActivationRejected) {
    lines.push(style.dim(JSON.stringify(e.data)));
  }
  return indent(lines.join("\n"));
}

/**
 * A notification of a call, dimmed: interim `text` as it is, others as name
 * and JSON; `tag` names a call that runs in the background (`[1] `).
 */
export function renderNotification(
  name: string,
  params: unknown,
  style: Style,
  tag = "",
): string {
  const text = name === "text" ? textOf(params) : undefined;
  return indent(tag + style.dim(text ?? `· ${name} ${JSON.stringify(params) ?? ""}`));
}

/** The text of an agent's message: a string, or `{"text": "..."}`. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const t = (value as { text?: unknown } | null)?.text;
  return typeof t === "string" ? t : undefined;
}

/** Names in columns, like `ls`, that fit `width` once indented. */
export function columns(names: string[], width: number): string {
  if (names.length === 0) return "";
  const cell = Math.max(...names.map((n) => n.length)) + 2;
  const perRow = Math.max(1, Math.floor((width - INDENT.length) / cell));
  const rows = Math.ceil(names.length / perRow);
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    const row: string[] = [];
    for (let c = 0; c < perRow; c++) {
      const n = names[c * rows + r];
      if (n !== undefined) row.push(n.padEnd(cell));
    }
    out.push(row.join("").trimEnd());
  }
  return out.join("\n");
}
