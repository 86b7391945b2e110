/**
 * A sandbox's share of the world's memory (`world_memory_mib` divided among
 * the sandboxes, PROTOCOL 4.9): the bytes its live processes have grown
 * their memories by, together. A grow that would pass the share fails, as
 * one past `memory_mib` does, before the kernel ever runs short; a process's
 * bytes come back when it ends. Initial memories (a few pages) and the
 * memory pool (`memory_pool_mib`) are outside it.
 *
 * @module
 */

/** How the trap of a grow refused for the world's memory bound begins (the core answers -32004). */
export const WORLD_MEMORY_TRAP = "world memory limit";

/** The bytes a sandbox's processes may grow by, together; one per sandbox. */
export class MemoryShare {
  /** The bytes granted to live processes now. */
  used = 0;

  /** @param limit the most bytes (Infinity: no bound) */
  constructor(readonly limit: number) {}

  /** Grants `bytes` when they fit in the share; false otherwise. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back `bytes` granted before (a process ended). */
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
