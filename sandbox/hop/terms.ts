/**
 * What the core and a sandbox agree on beside the messages of `protocol.ts`:
 * the words that begin the `error` of a process stopped by a memory bound
 * (the core answers -32004 on seeing them), how often the core tells a
 * sandbox how much output it took (`took`), the default bound of a
 * sandbox's memory pool, and the `world` of a run message whose world the
 * core serves over the pipe. Both sides import them from here, so neither
 * reaches into the other's files.
 *
 * @module
 */

/** How the trap of a grow refused for the world's memory bound begins (the core answers -32004). */
export const WORLD_MEMORY_TRAP = "world memory limit";

/** How the trap of a module whose initial memory passes `memory_mib` begins (the core answers -32004). */
export const INITIAL_MEMORY_TRAP = "initial memory limit";

/** The default bound of a sandbox's pool, in MiB (`memory_pool_mib`). */
export const DEFAULT_MEMORY_POOL_MIB = 64;

/**
 * The `world` of a run message on a worker (`core/remote/`): it has no world
 * folder, and the core serves `/` over the channel, as it serves `/proc`.
 */
export const SERVED_WORLD = "";

/**
 * The count of one process's output lines the core has handled since it
 * last said so: every quarter of a window, a `took` goes back to the
 * sandbox. (The core's half of `OutputWindow`, `sandbox/guest/output_window.ts`.)
 */
export function tookEvery(window: number): number {
  return Math.max(1, Math.floor(window / 4));
}
