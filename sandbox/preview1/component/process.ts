/**
 * What one process on the lean path needs for the WASI 0.2 functions its
 * main module imports: the guest as the canonical ABI sees it (memory,
 * `cabi_realloc`, handles) and the interfaces of `sandbox/wasi/` that both
 * paths share (less the filesystem, which the lean path serves through
 * preview 1).
 *
 * @module
 */

import { cliInterfaces } from "../../wasi/cli.ts";
import { clockInterfaces } from "../../wasi/clocks.ts";
import { errorInterface, InputStream, OutputStream, streamsInterface } from "../../wasi/streams.ts";
import type { ByteSink } from "../../wasi/streams.ts";
import type { ByteQueue } from "../../wasi/pipes.ts";
import { pollInterface } from "../../wasi/poll.ts";
import { randomInterfaces } from "../../wasi/random.ts";
import { networkInterfaces } from "../../wasi/network.ts";
import type { ProcessResources } from "../../wasi/resources.ts";
import type { Abi } from "./abi.ts";
import { Handles } from "./handles.ts";

/** What the shared WASI 0.2 interfaces of one process are made from. */
export interface ProcessWasi {
  env: [string, string][];
  args: string[];
  cwd: string;
  stdin: ByteQueue;
  stdout: ByteSink;
  stderr: ByteSink;
  resources: ProcessResources;
}

/**
 * The WASI 0.2 interfaces of one process, keyed `wasi:io/streams`, as jco's
 * glue and the lean path's canonical-ABI binding call them; the filesystem
 * is added by the jco path only.
 */
export function wasiInterfaces(p: ProcessWasi): Record<string, unknown> {
  return {
    ...cliInterfaces({
      env: p.env,
      args: p.args,
      cwd: p.cwd,
      stdin: new InputStream(p.stdin),
      stdout: new OutputStream(p.stdout),
      stderr: new OutputStream(p.stderr),
    }),
    ...clockInterfaces(),
    ...randomInterfaces(),
    "wasi:io/poll": pollInterface,
    "wasi:io/streams": streamsInterface,
    "wasi:io/error": errorInterface,
    ...networkInterfaces(p.resources),
  };
}

type Realloc = (old: number, oldSize: number, align: number, size: number) => number;

/** One process's guest for the canonical ABI: its memory, `cabi_realloc` and handles. */
export class GuestAbi implements Abi {
  readonly handles = new Handles();
  /** The main module's `cabi_realloc`, once instantiated. */
  realloc: Realloc | null = null;
  private dv: DataView | null = null;

  /** @param memory the process's memory, once known */
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
    return this.realloc(0, 0, align, size) >>> 0;
  }
}
