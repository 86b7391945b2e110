/**
 * `sausage log <world> [plugin-or-pid] [-n N] [--json]`: the journal, newest
 * last. Reads the journal file, so it works with or without a running host.
 *
 * @module
 */

import { type Entry, type LogFilter, readJournal } from "../core/journal.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";

/** Usage of `log`. */
export const LOG_USAGE = "sausage log <world> [plugin-or-pid] [-n N] [--json]";

const PID = /-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One entry as a line of text. */
export function formatEntry(e: Entry): string {
  const time = new Date(e.time).toISOString().replace("T", " ").slice(0, 23);
  return `${time} ${e.pid} ${e.stream.padEnd(6)} ${e.line}`;
}

/** Runs the subcommand; resolves with the exit code. */
export function log(args: string[]): number {
  const { positional, flags } = parseArgs(args, ["--json"], ["-n"]);
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${LOG_USAGE}`);
  const world = openWorld(positional[0]);
  const filter: LogFilter = { limit: 50 };
  const n = flags.get("-n");
  if (n !== undefined) {
    const v = Number(n);
    if (!Number.isInteger(v) || v < 1) {
      throw new UsageError(`-n needs a positive whole number, not "${n}"`);
    }
    filter.limit = v;
  }
  const who = positional[1];
  if (who !== undefined) {
    if (PID.test(who)) filter.pid = who;
    else filter.plugin = who;
  }
  const entries = readJournal(`${world.root}/state/core/journal.sqlite`, filter);
  if (flags.has("--json")) console.log(JSON.stringify(entries));
  else for (const e of entries) console.log(formatEntry(e));
  return 0;
}
