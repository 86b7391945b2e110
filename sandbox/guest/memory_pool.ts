/**
 * Memories kept for the next process. A fresh `WebAssembly.Memory` costs a
 * reservation of address space and then a page fault for every 4 KiB the
 * guest touches (its data segments, its stack, its heap): ~15 µs each on
 * this machine (4 ms a MiB), so a no-op Rust plugin paid 0.5–1 ms before it
 * ran a line. A memory that a finished process used is already mapped and
 * faulted in; zeroed again (~9 µs a MiB), it is as good as new to the next
 * guest. Main modules import their memory for this (`wasm/import_memory.ts`).
 *
 * A memory comes back only from a process whose instance can never run
 * again (its `run` settled), is zeroed whole before anyone else gets it,
 * and is kept only within the pool's bound: `memory_pool_mib` of
 * `config/limits.json`, per sandbox.
 *
 * @module
 */

import type { MemoryLimits } from "../../wasm/import_memory.ts";

const PAGE = 65536;

/** Free memories of one sandbox, within a bound in bytes. */
export class MemoryPool {
  private free: WebAssembly.Memory[] = [];
  private bytes = 0;

  /** @param bound the most bytes kept (0 keeps none) */
  constructor(readonly bound: number) {}

  /** How many memories and bytes are kept now. */
  get size(): { memories: number; bytes: number } {
    return { memories: this.free.length, bytes: this.bytes };
  }

  /**
   * A zeroed memory of at least `limits.initial` pages: a kept one when one
   * fits (the newest first), else a new one. A module with a maximum always
   * gets a new one (an import must not exceed it).
   */
  take(limits: MemoryLimits): WebAssembly.Memory {
    if (limits.maximum === undefined) {
      for (let i = this.free.length - 1; i >= 0; i--) {
        const m = this.free[i];
        if (m.buffer.byteLength >= limits.initial * PAGE) {
          this.free.splice(i, 1);
          this.bytes -= m.buffer.byteLength;
          return m;
        }
      }
    }
    return new WebAssembly.Memory(limits);
  }

  /**
   * Takes back the memory of a process that has ended for good, made for
   * `limits`; zeroes it and keeps it if the bound allows (and it has no
   * maximum, which the next guest might not expect), else lets it go.
   */
  give(memory: WebAssembly.Memory, limits: MemoryLimits): void {
    if (limits.maximum !== undefined) return;
    const size = memory.buffer.byteLength;
    if (this.bytes + size > this.bound) return;
    new Uint8Array(memory.buffer).fill(0);
    this.free.push(memory);
    this.bytes += size;
  }
}
