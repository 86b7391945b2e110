/**
 * JSON-RPC errors and notifications as text for people: the message (an
 * activation refusal is already the proposal's text), then the compiler's or
 * the tests' output, the warnings, and any other data as indented JSON.
 * Scripts get the error object itself (`--json`, or a stdout that is not a
 * terminal).
 *
 * @module
 */

import { isObject } from "../rpc/message.ts";

/** An error object (`code`, `message`, `data`) as text: what failed, then the details. */
export function errorText(error: { code?: number; message?: string; data?: unknown }): string {
  const out = [`error ${error.code ?? ""}: ${error.message ?? "(no message)"}`.replace(" :", ":")];
  const data = error.data;
  if (isObject(data)) {
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) {
      if (key === "output" && typeof value === "string") out.push("", value.trimEnd());
      else if (key === "warnings" && Array.isArray(value)) {
        out.push("", ...value.map((w) => `warning: ${String(w).trimEnd()}`));
      } else if (key === "tests" && isObject(value) && typeof value.output === "string") {
        if (!isObject(data) || data.output !== value.output) out.push("", value.output.trimEnd());
      } else if ((key === "problems" || key === "plugins") && Array.isArray(value)) {
        // An activation's refusal: its message already says each problem in words.
      } else if (key === "lines" && Array.isArray(value)) {
        out.push("", ...value.map(String));
      } else rest[key] = value;
    }
    if (Object.keys(rest).length) out.push("", JSON.stringify(rest, null, 2));
  } else if (data !== undefined) out.push("", JSON.stringify(data, null, 2));
  return out.join("\n");
}

/** The text of a notification's params: its `line` (cargo's progress) or `text`, else JSON. */
export function noteText(params: unknown): string {
  if (isObject(params)) {
    for (const v of [params, params.params, params.data]) {
      if (isObject(v) && typeof v.line === "string") return v.line;
      if (isObject(v) && typeof v.text === "string") return v.text;
    }
  }
  return JSON.stringify(params);
}

/** True when output should be for people: not `--json`, and stdout is a terminal. */
export function forPeople(json: boolean): boolean {
  return !json && Deno.stdout.isTerminal();
}
