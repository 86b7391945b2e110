/**
 * The limits of a world (`config/limits.json`, documented in PROTOCOL.md):
 * what keeps one plugin from taking the host down. Every field is optional;
 * a missing file means the defaults. The file is the owner's (guests cannot
 * write `config/`). A bad file never stops the host: each problem (the file,
 * the key, what is wrong and the default used instead) is reported and the
 * rest of the file applies.
 *
 * @module
 */

import { DEFAULT_MEMORY_POOL_MIB } from "../../sandbox/hop/terms.ts";
import { ConfigSyntaxError, readConfigFile } from "./config_file.ts";

/** The limits a host applies. */
export interface Limits {
  /** The most memory one process may grow to, in MiB (default 256). */
  memory_mib: number;
  /** The most live processes in the world at once (default 10,000). */
  processes: number;
  /** Calls of plugins one caller has in flight at once; more wait their turn (default 64). */
  calls_in_flight: number;
  /**
   * Of those, calls one caller has starting at once: started less than 20 ms
   * ago and not yet answered (default 4). A flood of short calls keeps only
   * this many in the sandboxes' pipes, ahead of other callers' calls.
   */
  calls_starting: number;
  /**
   * Calls starting in the whole world at once, over all callers (default
   * 16). Past it, calls wait and are let go in turn, one call of each
   * waiting caller per round: a flood from many callers keeps another
   * caller's call behind at most one round of theirs.
   */
  world_calls_starting: number;
  /** How many sandbox subprocesses run processes (default: one per core). */
  sandboxes: number;
  /** A sandbox that does not answer the core for this long is killed, with its processes (ms). */
  stall_ms: number;
  /** The longest line on any channel, in MiB (default 16): a guest's longer line ends it. */
  line_mib: number;
  /**
   * What waits to be written to one client that does not read (a control
   * socket connection: the CLI, the console's, MCP's), in MiB (default 16):
   * past it the connection is closed and a `limit` event journaled.
   */
  client_queue_mib: number;
  /** The journal's most size, in MiB (default 1024): the oldest entries go first. */
  journal_mib: number;
  /**
   * Space set aside beside the journal (`state/core/journal.reserve`), in
   * MiB (default 8; 0: none): when the disk fills, it goes to the journal so
   * the entries of what was acknowledged are written, and new calls are
   * refused (-32004) until it can be set aside again.
   */
  journal_reserve_mib: number;
  /** Journal entries older than this many days are dropped (default 30). */
  journal_days: number;
  /** One journal entry's most size, in KiB (default 64): a longer line is kept as a prefix. */
  journal_entry_kib: number;
  /** Lines a second one process may add to the journal (default 1000, bursts of 10x). */
  log_lines_per_second: number;
  /**
   * One process's stdout and stderr on its way to the core, in KiB (default
   * 16): past it, its writes wait until the core has taken some, so a flood
   * cannot hold up other processes' answers.
   */
  output_window_kib: number;
  /**
   * Memory of finished processes each sandbox keeps for the next ones, in MiB
   * (default 64; 0 keeps none): a reused memory spares a process its page faults.
   */
  memory_pool_mib: number;
  /**
   * The most bytes the world folder may hold, in MiB (default 8192): a guest
   * write that would pass it fails with `insufficient-space` (counted as
   * `vfs/disk_budget.ts` says).
   */
  disk_mib: number;
  /**
   * The most memory all live processes of the world may grow to together, in
   * MiB (default: half the machine's memory). Each sandbox has an equal share;
   * a grow past it fails and the call gets -32004.
   */
  world_memory_mib: number;
  /** How long a call may run before its answer, in ms, unless its caller asks otherwise (default 60,000). */
  call_timeout_ms: number;
  /** The longest time limit a caller may ask for (`timeout_ms` of `core.call`), in ms (default 3,600,000). */
  call_timeout_max_ms: number;
  /** After this many calls in a row that end without an answer, a plugin is reported failing (default 20). */
  failing_calls: number;
  /** A failing plugin's new calls are refused (-32004) for this long, in ms (default 0: only reported). */
  failing_hold_ms: number;
  /** Requests in flight to one process that serves files (default 16); more fail with `busy`. */
  served_requests: number;
  /** The data one read or write of a served file carries, in KiB (default 1024). */
  served_request_kib: number;
  /** The paths one process watches at once (`core.watch`, default 64). */
  watches: number;
  /** The pipes one process listens on and its pipe connections, together (default 64). */
  pipes: number;
}

/** The defaults, for a machine like the one the host runs on. */
export function defaultLimits(): Limits {
  return {
    memory_mib: 256,
    processes: 10_000,
    calls_in_flight: 64,
    calls_starting: 4,
    world_calls_starting: 48,
    sandboxes: navigator.hardwareConcurrency || 1,
    stall_ms: 10_000,
    line_mib: 16,
    client_queue_mib: 16,
    journal_mib: 1024,
    journal_reserve_mib: 8,
    journal_days: 30,
    journal_entry_kib: 64,
    log_lines_per_second: 1000,
    output_window_kib: 16,
    memory_pool_mib: DEFAULT_MEMORY_POOL_MIB,
    disk_mib: 8192,
    world_memory_mib: defaultWorldMemoryMib(),
    call_timeout_ms: 60_000,
    call_timeout_max_ms: 3_600_000,
    failing_calls: 20,
    failing_hold_ms: 0,
    served_requests: 16,
    served_request_kib: 1024,
    watches: 64,
    pipes: 64,
  };
}

/**
 * Half the machine's memory, in MiB (4096 when it cannot be read): from
 * `/proc/meminfo`, which needs no `--allow-sys` (the launcher grants only `uid`).
 */
function defaultWorldMemoryMib(): number {
  try {
    const kib = Number(/^MemTotal:\s+(\d+) kB/m.exec(Deno.readTextFileSync("/proc/meminfo"))?.[1]);
    return kib > 0 ? Math.max(64, Math.floor(kib / 2048)) : 4096;
  } catch {
    return 4096;
  }
}

const BOUNDS: Record<keyof Limits, [number, number]> = {
  memory_mib: [1, 4096],
  processes: [1, 1_000_000],
  calls_in_flight: [1, 1_000_000],
  calls_starting: [1, 1_000_000],
  world_calls_starting: [1, 1_000_000],
  sandboxes: [1, 256],
  stall_ms: [100, 3_600_000],
  line_mib: [1, 1024],
  client_queue_mib: [1, 65_536],
  journal_mib: [1, 1_048_576],
  journal_reserve_mib: [0, 65_536],
  journal_days: [1, 36_500],
  journal_entry_kib: [1, 1_048_576],
  log_lines_per_second: [1, 1_000_000],
  output_window_kib: [1, 1_048_576],
  memory_pool_mib: [0, 65_536],
  disk_mib: [1, 1 << 30],
  world_memory_mib: [16, 16_777_216],
  call_timeout_ms: [10, 86_400_000],
  call_timeout_max_ms: [10, 86_400_000],
  failing_calls: [1, 1_000_000],
  failing_hold_ms: [0, 86_400_000],
  served_requests: [1, 100_000],
  served_request_kib: [1, 1_048_576],
  watches: [1, 100_000],
  pipes: [1, 100_000],
};

/** The file, relative to the world. */
const FILE = "config/limits.json";

/** The limits of a world, and what was wrong with its file (one line each; empty when nothing). */
export interface ReadLimits {
  limits: Limits;
  problems: string[];
}

/**
 * Reads `config/limits.json` of a world. Never throws for what the file
 * holds: an unreadable file, bad JSON, an unknown key or a value out of its
 * bounds each give a problem line (file, key, what is wrong, the default
 * used), and the defaults stand for what was bad.
 */
export function readLimitsChecked(root: string): ReadLimits {
  const limits = defaultLimits();
  const defaults = defaultLimits();
  const problems: string[] = [];
  const allDefaults = (why: string) => {
    problems.push(`${FILE}: ${why}; every limit has its default`);
    return { limits, problems };
  };
  let json: unknown;
  try {
    // JSONC, confined to the world (a link that leads out is refused, never followed), and only
    // a regular file, opened without waiting (a FIFO cannot block the host).
    json = readConfigFile(root, FILE);
  } catch (e) {
    if (e instanceof ConfigSyntaxError) {
      // Its message names the file, line and column already.
      problems.push(`${e.message}; every limit has its default`);
      return { limits, problems };
    }
    return allDefaults(`cannot be read (${e instanceof Error ? e.message : e})`);
  }
  if (json === undefined) return { limits, problems };
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return allDefaults("must be an object");
  }
  for (const [key, value] of Object.entries(json)) {
    if (!Object.hasOwn(BOUNDS, key)) {
      problems.push(
        `${FILE}: unknown key "${key}" ignored (known: ${Object.keys(BOUNDS).join(", ")})`,
      );
      continue;
    }
    const k = key as keyof Limits;
    const [min, max] = BOUNDS[k];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      problems.push(
        `${FILE}: "${key}" is ${JSON.stringify(value)}, not an integer from ${min} to ${max}; ` +
          `the default ${defaults[k]} is used`,
      );
      continue;
    }
    limits[k] = value;
  }
  return { limits, problems };
}

/** The limits of `config/limits.json`; problems go to `report` (stderr by default). */
export function readLimits(
  root: string,
  report: (line: string) => void = (l) => console.error(`sausage: ${l}`),
): Limits {
  const { limits, problems } = readLimitsChecked(root);
  for (const p of problems) report(p);
  return limits;
}
