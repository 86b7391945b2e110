/**
 * A sandbox's share of the world's memory (`world_memory_mib` divided among
 * the sandboxes, PROTOCOL 4.9): the bytes of its live processes' memories,
 * their declared initial memories (`process_memories.ts`) and their grows,
 * together. A module whose initial memory would pass the share is not
 * instantiated; a grow that would pass it fails, as one past `memory_mib`
 * does; both before the kernel ever runs short. A process's bytes come back
 * when it ends. The memory pool (`memory_pool_mib`) is outside it.
 *
 * @module
 */

/** The bytes a sandbox's processes may grow by, together; one per sandbox. */
export class MemoryShare {
  /** The bytes granted to live processes now. */
  used = 0;

  /** @param limit the most bytes (Infinity: no bound) */
  constructor(readonly limit: number) {}

  /** Grants `bytes` when they fit in the share (or `force`: they exist already); false otherwise. */
  take(bytes: number, force = false): boolean {
    if (!force && this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back `bytes` granted before (a process ended). */
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
