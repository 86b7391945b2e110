/**
 * JSON-RPC errors and notifications as text for people: the message (an
 * activation refusal is already the proposal's text, a panic its message and
 * line), then the compiler's or the tests' output, the warnings, a process's
 * own last lines, and any other data as indented JSON; what is for scripts
 * only (a build's `step`, the core's events, an exit the message says) is
 * left out.
 * Scripts get the error object itself (`--json`; `call` also when stderr
 * is not a terminal).
 *
 * @module
 */

import { isObject } from "../rpc/message.ts";

/** Rust's note under a panic: there is no backtrace under WASI, so nothing to act on. */
const BACKTRACE_NOTE = /^note: run with `RUST_BACKTRACE=1`/;

/** The head line of a Rust panic. */
const PANIC_HEAD = /^thread '[^']*' (?:\(\d+\) )?panicked at /;

/** Keys of a process's end (-32002) that its message already says in words. */
const SAID_BY_MESSAGE = new Set(["status", "trap"]);

/** Keys for scripts only: which step of a build failed. */
const FOR_SCRIPTS = new Set(["step"]);

/**
 * The last journal lines of a process that ended without an answer, for
 * people: without the core's own events (`[core] {...}`, in `sausage log`),
 * without Rust's backtrace note, and without the panic when the message
 * already carries it.
 */
export function processLines(lines: string[], panicInMessage: boolean): string[] {
  let end = lines.length;
  if (panicInMessage) {
    const head = lines.findLastIndex((l) => PANIC_HEAD.test(l));
    if (head >= 0) end = head;
  }
  return lines.slice(0, end).filter((l) => !l.startsWith("[core] ") && !BACKTRACE_NOTE.test(l));
}

/** A compiler's or tests' output without Rust's backtrace note. */
function withoutNote(text: string): string {
  return text.split("\n").filter((l) => !BACKTRACE_NOTE.test(l)).join("\n").trimEnd();
}

/** An error object (`code`, `message`, `data`) as text: what failed, then the details. */
export function errorText(error: { code?: number; message?: string; data?: unknown }): string {
  const message = error.message ?? "(no message)";
  const out = [`error ${error.code ?? ""}: ${message}`.replace(" :", ":")];
  const data = error.data;
  const ended = / ended without an answer/.test(message);
  if (isObject(data)) {
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) {
      if (FOR_SCRIPTS.has(key) || (ended && SAID_BY_MESSAGE.has(key))) continue;
      if (key === "output" && typeof value === "string") out.push("", withoutNote(value));
      else if (key === "warnings" && Array.isArray(value)) {
        out.push("", ...value.map((w) => `warning: ${String(w).trimEnd()}`));
      } else if (key === "tests" && isObject(value) && typeof value.output === "string") {
        if (!isObject(data) || data.output !== value.output) {
          out.push("", withoutNote(value.output));
        }
      } else if ((key === "problems" || key === "plugins") && Array.isArray(value)) {
        // An activation's refusal: its message already says each problem in words.
      } else if (key === "lines" && Array.isArray(value)) {
        const shown = processLines(value.map(String), / panicked at /.test(message));
        if (shown.length) out.push("", ...shown);
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
