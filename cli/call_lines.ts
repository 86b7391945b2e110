/**
 * A line per finished call while `sausage run` runs without the console:
 * `12:00:01.234 notes.add notes-01a2… 3 ms exit 0`, from the journal's
 * `start` and `exit` events (the console has `log -f` for this): the
 * process's end (exit status, trap, killed), not whether its answer was an
 * error, which the journal does not keep. The host's own `rpc.discover`
 * calls are left out. `--quiet` turns it off.
 *
 * @module
 */

import type { Entry, LogFilter } from "../core/journal/journal.ts";
import { JournalFollower } from "./console/journal_follower.ts";

/** The text of one finished call. */
export function callLine(
  time: number,
  method: string,
  pid: string,
  ms: number | null,
  exit: { status?: unknown; trap?: string },
): string {
  const clock = new Date(time).toISOString().slice(11, 23); // UTC, as log and ps print
  const outcome = exit.trap
    ? `trapped: ${exit.trap.split("\n")[0]}`
    : exit.status === "killed"
    ? "killed"
    : `exit ${exit.status}`;
  return `${clock} ${method} ${pid} ${ms === null ? "" : `${Math.round(ms)} ms `}${outcome}`;
}

/** Follows the journal and prints a line per finished call; returns a function that stops. */
export function followCalls(
  query: (f: LogFilter) => Entry[],
  print: (line: string) => void,
): () => void {
  const started = new Map<string, { method: string; time: number }>();
  const follower = new JournalFollower(query, {}, (e) => {
    if (e.stream !== "core") return;
    let event: { event?: string; method?: string; status?: unknown; trap?: string };
    try {
      event = JSON.parse(e.line);
    } catch {
      return;
    }
    if (event.event === "start" && event.method && event.method !== "rpc.discover") {
      started.set(e.pid, { method: `${e.plugin}.${event.method}`, time: e.time });
    } else if (event.event === "exit") {
      const call = started.get(e.pid);
      if (!call) return;
      started.delete(e.pid);
      print(callLine(e.time, call.method, e.pid, e.time - call.time, event));
    }
  });
  return () => follower.stop();
}
