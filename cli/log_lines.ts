/**
 * Journal entries as lines for people, shared by `sausage log` and the
 * console's `log`: the format the headless run prints calls in.
 *
 * @module
 */

import type { Entry } from "../core/journal/journal.ts";
import { entryText } from "../core/journal/log_event.ts";
import { callLine } from "./call_lines.ts";
import { parseExact } from "../rpc/exact_json.ts";

/**
 * Journal entries as lines for people, as the headless run prints calls: a
 * finished call is one line (`03:06:47.126 hello.greet hello-… 25 ms exit 0`)
 * at its end, its start is not a line of its own; a process's output and the
 * core's other events are `<time> <pid> <text>`. `--json` keeps the raw entries.
 */
export class PeopleLines {
  private started = new Map<string, { method: string; time: number }>();

  /** The line of `e`, or null when it prints later (a call's start). */
  line(e: Entry): string | null {
    const clock = new Date(e.time).toISOString().slice(11, 23);
    if (e.stream === "core" && !e.level) {
      let event: {
        event?: unknown;
        method?: unknown;
        status?: unknown;
        trap?: string;
        worker?: unknown;
      };
      try {
        event = parseExact(e.line) as typeof event;
      } catch {
        return `${clock} ${e.pid} ${e.line}`;
      }
      if (event.event === "start" && typeof event.method === "string") {
        // A process on a remote worker (`sausage worker`) says where it ran.
        const on = typeof event.worker === "string" ? ` on ${event.worker}` : "";
        this.started.set(e.pid, { method: `${e.plugin}.${event.method}${on}`, time: e.time });
        return null;
      }
      if (event.event === "exit") {
        const call = this.started.get(e.pid);
        this.started.delete(e.pid);
        return callLine(
          e.time,
          call?.method ?? e.plugin,
          e.pid,
          call ? e.time - call.time : null,
          event,
        );
      }
      // The core's other events (stop, activate, limit…) as `stop key=value…`.
      const { event: name, ...fields } = event as Record<string, unknown>;
      if (typeof name === "string") {
        const rest = Object.entries(fields).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`);
        return `${clock} ${e.pid} ${name}${rest.join("")}`;
      }
    }
    return `${clock} ${e.pid} ${entryText(e)}`;
  }

  /** Lines for the calls that started and have not ended (yet), then forgets them. */
  running(): string[] {
    const lines = [...this.started].map(([pid, call]) =>
      `${new Date(call.time).toISOString().slice(11, 23)} ${call.method} ${pid} running`
    );
    this.started.clear();
    return lines;
  }
}
