/**
 * The limits of a world (`config/limits.json`, documented in PROTOCOL.md):
 * what keeps one plugin from taking the host down. Every field is optional;
 * a missing file means the defaults.
 *
 * @module
 */

import { DEFAULT_MEMORY_POOL_MIB } from "../sandbox/memory_pool.ts";
import { ConfigSyntaxError, readConfigFile } from "./config_file.ts";

/** The limits a host applies. */
export interface Limits {
  /** The most memory one process may grow to, in MiB (default 256). */
  memory_mib: number;
  /** The most live processes in the world at once (default 10,000). */
  processes: number;
  /** How many sandbox subprocesses run processes (default: one per core). */
  sandboxes: number;
  /** A sandbox that does not answer the core for this long is killed, with its processes (ms). */
  stall_ms: number;
  /** The longest line on any channel, in MiB (default 16): a guest's longer line ends it. */
  line_mib: number;
  /** The journal's most size, in MiB (default 1024): the oldest entries go first. */
  journal_mib: number;
  /** Journal entries older than this many days are dropped (default 30). */
  journal_days: number;
  /** Lines a second one process may add to the journal (default 1000, bursts of 10x). */
  log_lines_per_second: number;
  /**
   * Memory of finished processes each sandbox keeps for the next ones, in MiB
   * (default 64; 0 keeps none): a reused memory spares a process its page faults.
   */
  memory_pool_mib: number;
}

/** The defaults, for a machine like the one the host runs on. */
export function defaultLimits(): Limits {
  return {
    memory_mib: 256,
    processes: 10_000,
    sandboxes: navigator.hardwareConcurrency || 1,
    stall_ms: 10_000,
    line_mib: 16,
    journal_mib: 1024,
    journal_days: 30,
    log_lines_per_second: 1000,
    memory_pool_mib: DEFAULT_MEMORY_POOL_MIB,
  };
}

const BOUNDS: Record<keyof Limits, [number, number]> = {
  memory_mib: [1, 4096],
  processes: [1, 1_000_000],
  sandboxes: [1, 256],
  stall_ms: [100, 3_600_000],
  line_mib: [1, 1024],
  journal_mib: [1, 1_048_576],
  journal_days: [1, 36_500],
  log_lines_per_second: [1, 1_000_000],
  memory_pool_mib: [0, 65_536],
};

/**
 * Reads `config/limits.json` of a world (JSONC); throws a one-line error that
 * names the bad field. A file that is not valid JSONC does not stop the host:
 * its error (file, line, column) goes to `report` and every limit has its
 * default.
 */
export function readLimits(
  root: string,
  report: (line: string) => void = (l) => console.error(`sausage: ${l}`),
): Limits {
  const limits = defaultLimits();
  let json: unknown;
  try {
    json = readConfigFile(root, "config/limits.json");
  } catch (e) {
    if (!(e instanceof ConfigSyntaxError)) throw e;
    report(`${e.message}; every limit has its default`);
    return limits;
  }
  if (json === undefined) return limits;
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error("config/limits.json must be an object");
  }
  for (const [key, value] of Object.entries(json)) {
    if (!(key in BOUNDS)) {
      throw new Error(
        `config/limits.json: unknown field "${key}" (known: ${Object.keys(BOUNDS).join(", ")})`,
      );
    }
    const [min, max] = BOUNDS[key as keyof Limits];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw new Error(`config/limits.json: "${key}" must be an integer from ${min} to ${max}`);
    }
    limits[key as keyof Limits] = value;
  }
  return limits;
}
