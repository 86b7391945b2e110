/**
 * The memories of one process: taken from the sandbox's pool
 * (`memory_pool.ts`) once its declared initial memory is charged against
 * the process's limit (`memory_mib`) and the sandbox's share of the world's
 * memory (`world_memory_mib`, `memory_share.ts`), before anything is
 * allocated. A module that declares more than either gets no memory: its
 * instantiation fails, the process ends, and the core answers its call with
 * -32004 naming the limit (PROTOCOL 4.9). Every core module that imports its
 * memory is charged (a component's several, each).
 *
 * @module
 */

import type { MemoryLimits } from "../../wasm/import_memory.ts";
import type { GuestControl } from "./guest_control.ts";
import type { MemoryPool } from "./memory_pool.ts";

const PAGE = 65536;

/** Where a process's memories come from and go back to (the pool, or a process's view of it). */
export interface MemorySource {
  /** A zeroed memory of at least `limits.initial` pages; throws when the process may not have it. */
  take(limits: MemoryLimits): WebAssembly.Memory;
  /** Takes back a memory of a process that has ended for good. */
  give(memory: WebAssembly.Memory, limits: MemoryLimits): void;
}

/** Thrown when a module's initial memory is refused; the process's control says which limit. */
export class InitialMemoryRefused extends Error {
  constructor(readonly bytes: number) {
    super(`its initial memory of ${bytes / 2 ** 20} MiB was refused`);
  }
}

/** One process's view of the pool: every memory it takes is charged first. */
export class ProcessMemories implements MemorySource {
  /**
   * @param pool the sandbox's pool
   * @param control the process's control (its limit, its share, what it was charged)
   */
  constructor(private pool: MemoryPool, private control: GuestControl) {}

  take(limits: MemoryLimits): WebAssembly.Memory {
    const bytes = limits.initial * PAGE;
    if (!this.control.chargeInitial(bytes)) throw new InitialMemoryRefused(bytes);
    const memory = this.pool.take(limits);
    // A kept memory may be larger than asked: it is this process's while it runs.
    this.control.chargeInitial(memory.buffer.byteLength - bytes, true);
    return memory;
  }

  give(memory: WebAssembly.Memory, limits: MemoryLimits): void {
    this.pool.give(memory, limits);
  }
}
