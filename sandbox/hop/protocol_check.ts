/**
 * The checks of `protocol.ts`'s messages where they are received: the core
 * does not trust a sandbox (`checkFromSandbox`), and a sandbox checks what
 * it is told to do (`checkToSandbox`). Each returns the message typed, or
 * throws a `FrameError` that names what was wrong; the link that received
 * it then closes. Only the envelope is checked here: an fs call's method
 * and params are checked by the core's `checkFsCall` when it serves them.
 *
 * @module
 */

import type { FromSandbox, ToSandbox } from "./protocol.ts";
import { FrameError } from "./frames.ts";

type Obj = Record<string, unknown>;

function fail(what: string): never {
  throw new FrameError(`a message ${what}`);
}

function str(m: Obj, key: string): void {
  if (typeof m[key] !== "string") fail(`whose ${key} is not a string`);
}

function optStr(m: Obj, key: string): void {
  if (m[key] !== undefined && typeof m[key] !== "string") fail(`whose ${key} is not a string`);
}

function num(m: Obj, key: string): void {
  if (typeof m[key] !== "number") fail(`whose ${key} is not a number`);
}

function obj(v: unknown): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail("that is not an object");
  return v as Obj;
}

function stringPairs(v: unknown): void {
  if (
    !Array.isArray(v) ||
    !v.every((p) =>
      Array.isArray(p) && p.length === 2 && typeof p[0] === "string" && typeof p[1] === "string"
    )
  ) fail("whose env is not a list of string pairs");
}

/** A message from a sandbox, checked (the core's side). */
export function checkFromSandbox(v: unknown): FromSandbox {
  const m = obj(v);
  switch (m.op) {
    case "ready":
      break;
    case "pong":
      num(m, "n");
      break;
    case "out":
    case "err":
      str(m, "pid");
      str(m, "line");
      break;
    case "exit":
      str(m, "pid");
      num(m, "status");
      optStr(m, "error");
      break;
    case "fs":
      str(m, "pid");
      num(m, "id");
      str(m, "mount");
      obj(m.call);
      break;
    default:
      fail(`of an unknown op ${JSON.stringify(m.op)}`);
  }
  return m as unknown as FromSandbox;
}

/** A message from the core, checked (a sandbox's side). */
export function checkToSandbox(v: unknown): ToSandbox {
  const m = obj(v);
  switch (m.op) {
    case "run":
      for (const k of ["pid", "dir", "world"]) str(m, k);
      num(m, "memoryLimit");
      num(m, "maxLine");
      if (m.outputWindow !== undefined) num(m, "outputWindow");
      stringPairs(m.env);
      optStr(m, "request");
      optStr(m, "cwd");
      if (
        m.args !== undefined &&
        !(Array.isArray(m.args) && m.args.every((a) => typeof a === "string"))
      ) {
        fail("whose args are not strings");
      }
      if (m.preopens !== undefined && !Array.isArray(m.preopens)) {
        fail("whose preopens are not a list");
      }
      if (m.onlyPreopens !== undefined && typeof m.onlyPreopens !== "boolean") {
        fail("whose onlyPreopens is not a boolean");
      }
      break;
    case "in":
      str(m, "pid");
      str(m, "line");
      break;
    case "eof":
    case "kill":
      str(m, "pid");
      break;
    case "ping":
      num(m, "n");
      break;
    case "took":
      str(m, "pid");
      num(m, "count");
      break;
    case "fs-reply":
      str(m, "pid");
      num(m, "id");
      break;
    default:
      fail(`of an unknown op ${JSON.stringify(m.op)}`);
  }
  return m as unknown as ToSandbox;
}
