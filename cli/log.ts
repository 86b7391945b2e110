/**
 * `sausage log <world> [plugin-or-pid] [-n N] [-f] [--level L] [--field k=v]… [--json]`:
 * the journal, newest last; `-f` then follows it (new entries as they come,
 * until Ctrl-C), as the console's `log -f` does. `--level` and `--field`
 * keep the structured events (PROTOCOL 8) at that level or above, or whose
 * field holds that value (a JSON value, else a string). Printed as the
 * headless run prints calls (a line per finished call: time, method, pid,
 * milliseconds, exit; a process's output as `<time> <pid> <line>`);
 * `--json` gives the raw entries. The core's own `rpc.discover`
 * calls are left out unless `--all`. Reads the journal file, so it works
 * with or without a running host.
 *
 * @module
 */

import { type Entry, type LogFilter, readJournal } from "../core/journal/journal.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";
import { JournalFollower } from "./console/journal_follower.ts";
import { DiscoveryFilter } from "./discovery_filter.ts";
import { isLevel, LEVELS } from "../core/journal/log_event.ts";
import { PeopleLines } from "./log_lines.ts";
import { closest } from "./console/closest.ts";
import type { World } from "../core/world/world.ts";

/** Usage of `log`. */
export const LOG_USAGE =
  "sausage log <world> [plugin-or-pid] [-n N] [-f] [--level L] [--field key=value]... [--all] [--json]";

const PID = /-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Takes every `--field key=value` (or `--field=key=value`) out of `args`
 * into `fields`: the value is JSON when it parses (`7`, `true`, `"7"`), else
 * the string as written.
 */
export function takeFieldFlags(args: string[], fields: Record<string, unknown>): string[] {
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (a !== "--field" && !a.startsWith("--field=")) {
      rest.push(a);
      continue;
    }
    const pair = a === "--field" ? args[++i] : a.slice("--field=".length);
    const eq = pair?.indexOf("=") ?? -1;
    if (pair === undefined || eq < 1) {
      throw new UsageError(`--field needs key=value (e.g. --field user=7), not "${pair ?? ""}"`);
    }
    const text = pair.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch { /* a plain string */ }
    fields[pair.slice(0, eq)] = value;
  }
  return rest;
}

/**
 * Throws a usage error when `who` (a plugin, or a pid when `isPid`) has no
 * entry in the journal and is no plugin of `world`: a typo, with the
 * closest name of the same kind (plugin for plugin, pid for pid).
 */
function unknownWho(world: World, journal: string, who: string, isPid: boolean): void {
  if (!isPid && world.pluginNames().includes(who)) return; // a plugin not called yet
  if (isPid) {
    const pids = new Set(readJournal(journal, { limit: 2000 }).map((e) => e.pid));
    const near = closest(who, pids, 4);
    throw new UsageError(
      `no process ${who} in the journal of ${world.root}` +
        (near ? `; did you mean ${near}?` : "") +
        " (`sausage ps <world>` lists the running ones)",
    );
  }
  const plugins = new Set(world.pluginNames());
  for (const e of readJournal(journal, { limit: 2000 })) if (e.plugin) plugins.add(e.plugin);
  const near = closest(who, plugins, 2);
  throw new UsageError(
    `no plugin ${who} in ${world.root}` +
      (near ? `; did you mean ${near}?` : "") +
      (plugins.size ? ` (plugins: ${[...plugins].sort().join(", ")})` : ""),
  );
}

/** Runs the subcommand; resolves with the exit code. */
export async function log(args: string[]): Promise<number> {
  const fields: Record<string, unknown> = {};
  const { positional, flags } = parseArgs(
    takeFieldFlags(args, fields),
    ["--json", "-f", "--all"],
    ["-n", "--level"],
  );
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${LOG_USAGE}`);
  const world = openWorld(positional[0]);
  const filter: LogFilter = { limit: 50 };
  if (Object.keys(fields).length) filter.fields = fields;
  const level = flags.get("--level");
  if (level !== undefined) {
    if (!isLevel(level)) {
      throw new UsageError(`--level needs one of ${LEVELS.join(", ")}, not "${level}"`);
    }
    filter.level = level;
  }
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
  const journal = `${world.root}/state/core/journal.sqlite`;
  // The core's own rpc.discover calls are left out unless --all (or a pid is asked for).
  const hide = flags.has("--all") || filter.pid ? null : new DiscoveryFilter();
  const wanted = filter.limit!;
  let entries = readJournal(
    journal,
    hide ? { ...filter, limit: Math.min(wanted * 4, 10_000) } : filter,
  );
  if (hide) entries = entries.filter((e) => hide.keep(e)).slice(-wanted);
  if (who !== undefined && !entries.length) {
    const any = readJournal(journal, { plugin: filter.plugin, pid: filter.pid, limit: 1 });
    if (!any.length) unknownWho(world, journal, who, filter.pid !== undefined);
  }
  if (flags.has("-f")) {
    // One entry a line (JSON lines with --json), then the new ones as they come.
    const lines = new PeopleLines();
    const print = (e: Entry) => {
      const line = flags.has("--json") ? JSON.stringify(e) : lines.line(e);
      if (line !== null) console.log(line);
    };
    entries.forEach(print);
    const { limit: _, ...follow } = filter;
    const follower = new JournalFollower((f) => readJournal(journal, f), follow, (e) => {
      if (!hide || hide.keep(e)) print(e);
    });
    await new Promise<void>((resolve) => {
      const stop = () => {
        follower.stop();
        Deno.removeSignalListener("SIGINT", stop);
        resolve();
      };
      Deno.addSignalListener("SIGINT", stop);
    });
    return 0;
  }
  if (flags.has("--json")) console.log(JSON.stringify(entries));
  else {
    const lines = new PeopleLines();
    for (const e of entries) {
      const line = lines.line(e);
      if (line !== null) console.log(line);
    }
    for (const line of lines.running()) console.log(line);
  }
  return 0;
}
