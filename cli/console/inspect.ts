/**
 * The world as it runs, as text for the console: `ls`, `cat` (the
 * filesystem as a process sees it), `ps` and `log` (the journal). Each
 * function throws an `Error` whose message is the one line to print.
 *
 * @module
 */

import type { LogFilter } from "../../core/journal/journal.ts";
import type { ProcessInfo } from "../../core/processes/process.ts";
import { table } from "../output.ts";
import type { ConsoleHost } from "./console_host.ts";
import { columns } from "./render.ts";

const PID = /-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const FS_ERRORS: Record<string, string> = {
  "no-entry": "no such file or folder",
  "not-permitted": "outside the world",
  "access": "permission denied",
  "is-directory": "is a folder (ls lists it)",
  "not-directory": "not a folder (cat shows it)",
  "invalid": "not a valid path",
};

/** A path typed without a leading `/` is taken from the world's root. */
export function worldPath(path: string): string {
  return path.startsWith("/") ? path : `/${path}`;
}

function fsError(path: string, e: unknown): Error {
  const code = (e as { code?: string }).code;
  const why = code && FS_ERRORS[code] ? FS_ERRORS[code] : e instanceof Error ? e.message : e;
  return new Error(`${path}: ${why}`);
}

/** `ls`: a folder's entries in columns (folders end with `/`), or a file's size; unindented. */
export async function listText(host: ConsoleHost, path: string, width: number): Promise<string> {
  try {
    const l = await host.list(worldPath(path));
    if (!l.entries) return `${l.path}  ${l.stat.size} bytes`;
    const names = l.entries.map((e) => (e.type === "directory" ? `${e.name}/` : e.name));
    return names.length ? columns(names, width) : "(empty)";
  } catch (e) {
    throw fsError(path, e);
  }
}

/** `cat`: a file's text (binary files by their size). */
export async function readText(host: ConsoleHost, path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await host.read(worldPath(path));
  } catch (e) {
    throw fsError(path, e);
  }
  if (bytes.includes(0)) return `${path}: ${bytes.length} bytes of binary data`;
  return new TextDecoder().decode(bytes).replace(/\n$/, "");
}

/** `ps` (the console's and `sausage ps`): the process table, or null when no process runs. */
export function processTable(list: ProcessInfo[]): string | null {
  if (list.length === 0) return null;
  // A WORKER column when a process runs on a remote worker (`sausage worker`).
  const remote = list.some((p) => p.worker);
  return table(
    ["PID", "METHOD", "PARENT", "DETACHED", "START", "STATE", ...(remote ? ["WORKER"] : [])],
    list.map((p) => [
      p.pid,
      p.method,
      p.parent,
      p.detached ? "yes" : "no",
      clock(Date.parse(p.start)),
      p.state,
      ...(remote ? [p.worker ?? "-"] : []),
    ]),
  );
}

/** The journal filter of `log <who>`: a pid, or else a plugin. */
export function whoFilter(who: string | undefined): LogFilter {
  if (who === undefined) return {};
  return PID.test(who) ? { pid: who } : { plugin: who };
}

/** The local time of day, to the second. */
function clock(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
