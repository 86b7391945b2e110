/**
 * Params and results forwarded as the text they came in (issue 38, item 2):
 * the core parses a message once (it must: is it JSON-RPC, whose id, which
 * method, a result or an error), and what it only passes on (a call's
 * params to the callee's stdin, a result to a caller that takes text: a
 * process's stdin, a client of the control socket) goes as its own text
 * with only the id written anew, not a second serialisation of what the
 * parse made. Every number and string stays as sent (PROTOCOL 4.1).
 *
 * Only a line whose members each come once keeps its text, and an answer
 * only when it has exactly `jsonrpc`, `id` and `result`: anything else is
 * serialised as before. The text is found when it is sent, so a message
 * that is never sent as text costs a `WeakMap` entry.
 *
 * @module
 */

import type { Id, Message, Response } from "./message.ts";

/** The line each response, and each request's params object, was parsed from. */
const lines = new WeakMap<object, string>();

/** True for JSON's whitespace. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The first index from `i` that is not whitespace. */
function skipSpace(t: string, i: number): number {
  while (i < t.length && isSpace(t.charCodeAt(i))) i++;
  return i;
}

/** The index of the quote that closes a string whose text starts at `from`; -1 when none does. */
function stringEnd(t: string, from: number): number {
  for (let q = t.indexOf('"', from); q >= 0; q = t.indexOf('"', q + 1)) {
    let b = q - 1;
    while (t.charCodeAt(b) === 0x5c) b--; // backslashes before it
    if ((q - 1 - b) % 2 === 0) return q;
  }
  return -1;
}

/** The index just past the value that starts at `i` of a valid JSON text; -1 when there is none. */
function valueEnd(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === 0x22) {
    const q = stringEnd(t, i + 1);
    return q < 0 ? -1 : q + 1;
  }
  if (c === 0x7b || c === 0x5b) { // '{' '['
    let depth = 0;
    for (; i < t.length; i++) {
      const d = t.charCodeAt(i);
      if (d === 0x22) {
        i = stringEnd(t, i + 1);
        if (i < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  const start = i;
  while (i < t.length) {
    const d = t.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    i++;
  }
  return i > start ? i : -1;
}

/**
 * Each member of the JSON object `text` (which `JSON.parse` took) with the
 * text of its value; null when `text` is no object or a key repeats.
 */
export function memberTexts(text: string): Map<string, string> | null {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return null;
  const members = new Map<string, string>();
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return skipSpace(text, i + 1) === text.length ? members : null;
  for (;;) {
    if (text.charCodeAt(i) !== 0x22) return null;
    const close = stringEnd(text, i + 1);
    if (close < 0) return null;
    const raw = text.slice(i + 1, close);
    const key = raw.includes("\\") ? JSON.parse(`"${raw}"`) as string : raw;
    i = skipSpace(text, close + 1);
    if (text.charCodeAt(i) !== 0x3a) return null; // ':'
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end < 0 || members.has(key)) return null;
    members.set(key, text.slice(i, end));
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x7d) return skipSpace(text, i + 1) === text.length ? members : null;
    if (c !== 0x2c) return null;
    i = skipSpace(text, i + 1);
  }
}

/**
 * Keeps `line`, the JSON text response `msg` was parsed from: a caller that
 * takes the result as text gets its text from there (a response with an
 * error keeps nothing).
 */
export function keepResultText(msg: Response, line: string): void {
  if (msg.error === undefined) lines.set(msg, line);
}

/** Makes `to` (the same result under the caller's id) keep the line `from` kept, if it kept one. */
export function passResultText(from: Response, to: Response): void {
  const line = lines.get(from);
  if (line !== undefined) lines.set(to, line);
}

/**
 * The text of the result on `line` when `line` is an object of exactly
 * `jsonrpc`, `id` and `result`, each once; else undefined.
 */
function resultText(line: string): string | undefined {
  const members = memberTexts(line);
  if (members === null || members.size !== 3 || !members.has("jsonrpc") || !members.has("id")) {
    return undefined;
  }
  return members.get("result");
}

/**
 * A message as one line of JSON: a response that kept its result's text
 * (and has nothing but `jsonrpc`, `id`, `result`) gets it verbatim under its
 * own id; anything else is `JSON.stringify`'s.
 */
export function messageText(msg: Message | unknown): string {
  const line = lines.get(msg as object); // undefined for anything not kept (a primitive too)
  const text = line === undefined ? undefined : resultText(line);
  if (text === undefined) return JSON.stringify(msg);
  return `{"jsonrpc":"2.0","id":${JSON.stringify((msg as Response).id)},"result":${text}}`;
}

/** Keeps `line`, the JSON text a request with these `params` was parsed from. */
export function keepParamsText(params: object, line: string): void {
  lines.set(params, line);
}

/**
 * The request line of a call as a process reads it on stdin: `params` as
 * the text they came in when they were parsed from a line (and their member
 * came once there), else `JSON.stringify`'s.
 */
export function requestText(id: Id, method: string, params: object): string {
  const line = lines.get(params);
  const members = line === undefined ? null : memberTexts(line);
  const text = members?.get("params") ?? JSON.stringify(params);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},` +
    `"params":${text}}`;
}
