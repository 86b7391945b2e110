/**
 * One process's guest as the canonical ABI sees it, on the lean path: its
 * memory, its `cabi_realloc` and its handles (the interfaces it calls are
 * `sandbox/wasi/process_interfaces.ts`).
 *
 * @module
 */

import type { Abi } from "./abi.ts";
import { Handles } from "./handles.ts";

type Realloc = (old: number, oldSize: number, align: number, size: number) => number;

/** One process's guest for the canonical ABI: its memory, `cabi_realloc` and handles. */
export class GuestAbi implements Abi {
  readonly handles = new Handles();
  /** The main module's `cabi_realloc`, once instantiated. */
  realloc: Realloc | null = null;
  private dv: DataView | null = null;

  /**
   * @param memory the process's memory, once known; it throws once the
   * process has ended (`GuestMemory`'s fence), so that a call that settles
   * late writes nothing
   */
  constructor(private memory: () => WebAssembly.Memory) {}

  view(): DataView {
    const buffer = this.memory().buffer;
    if (this.dv?.buffer !== buffer) this.dv = new DataView(buffer);
    return this.dv;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.memory().buffer);
  }

  alloc(align: number, size: number): number {
    if (!this.realloc) throw new Error("the main module exports no cabi_realloc");
    this.memory(); // throws once the process has ended: its allocator is not called again
    return this.realloc(0, 0, align, size) >>> 0;
  }
}
