/**
 * The options of a host: what a command, a test or the benchmark may change
 * about how a world runs (sandboxes, caches, the journal, the SDK copy).
 *
 * @module
 */

import type { SandboxPool } from "./sandboxes/sandbox_pool.ts";
import type { HostLock } from "./control/host_lock.ts";
import type { OpenTestHost } from "./test_runner/test_runner.ts";

/** Options of a host. */
export interface HostOptions {
  /** How many sandboxes run processes (default `sandboxes` of `config/limits.json`). */
  sandboxes?: number;
  /** Where transpiled components are cached. */
  cacheDir?: string;
  /**
   * Run components without the preemption checks (default false). Only the
   * benchmark sets it, to measure what the checks cost: such guests cannot be
   * killed at a check, and a loop stalls its whole sandbox until the backstop.
   */
  noPreemption?: boolean;
  /** Receives one line per notable event (boot results), for the terminal. */
  report?: (line: string) => void;
  /** Fetch every plugin's document at start and watch `plugins/` (default true). */
  watch?: boolean;
  /**
   * Sandboxes shared with other hosts (the test runner gives each test a
   * host of its own on one pool); the host does not close them. By
   * default the host starts a pool of its own.
   */
  pool?: SandboxPool;
  /**
   * Opens a test instance's private host (`world_server.ts`'s
   * `openTestHost`, which gives it): `cargo.build` then runs a plugin's
   * tests in this process. Without it they run as cargo by hand runs them.
   */
  openTestHost?: OpenTestHost;
  /** The journal's SQLite file; `:memory:` keeps it in memory. Default `state/core/journal.sqlite`. */
  journalPath?: string;
  /**
   * When set, no call starts a plugin: each fails with -32001 and this
   * message for `<plugin>.<method>` (a test has no other plugins).
   */
  noPlugins?: (method: string) => string;
  /**
   * The SDK that `cargo.build` builds against: copied to the world's
   * `plugins/cargo/sdk/` at start when that copy is missing or differs.
   * Default this repository's `sdk/`; null: no copy (a test's empty world).
   */
  sdkDir?: string | null;
  /**
   * The world's lock, when the command took it already (`sausage run` takes
   * it before building); by default the host takes it first thing.
   */
  lock?: HostLock;
  /** What the lock file says holds the world (default the CLI's subcommand). */
  command?: string;
  /** A host that ends once its command is done (`LockHolder.transient`); default false. */
  transient?: boolean;
}
