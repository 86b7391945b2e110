/**
 * A guest as its process sees it: the sandbox that runs it, which takes its
 * stdin lines, EOF and kill, and which the core tells how much of its output
 * it has handled (`took`, `sandbox/guest/output_window.ts`). Also where guests go:
 * a sandbox of the pool (`sandbox.ts`) or of a worker (`remote/`).
 *
 * @module
 */

import type { Message } from "../../rpc/message.ts";
import type { ProcessRunner } from "../processes/process.ts";
import type { Sandbox } from "./sandbox.ts";

/** What the core uses of a sandbox: it starts guests there and sends them messages. */
export type GuestSandbox = Pick<Sandbox, "start" | "send"> & {
  /** The remote worker it is, if any (`core/remote/`). */
  readonly worker?: string;
};

/** Where new guests go: the sandbox pool, or workers (`core/remote/placement.ts`). */
export interface GuestPlacer {
  /** A sandbox for one more guest, of `plugin` (none: a command). */
  place(plugin?: string): Promise<GuestSandbox>;
}

/** A guest in a sandbox, as its process sees it. */
export class GuestRunner implements ProcessRunner {
  readonly native = false;
  /** Its output the core handled and has not yet told its sandbox of (`took`). */
  private untold = 0;

  constructor(
    readonly sandbox: GuestSandbox,
    readonly pid: string,
    /** How much handled output the core tells its sandbox of at a time (`tookEvery`). */
    private tookEvery: number,
  ) {}

  /** The remote worker it runs on, if any. */
  get worker(): string | undefined {
    return this.sandbox.worker;
  }

  /** Writes a message to its stdin. */
  input(msg: Message): void {
    this.sandbox.send({ op: "in", pid: this.pid, line: JSON.stringify(msg) });
  }

  /** Closes its stdin. */
  eof(): void {
    this.sandbox.send({ op: "eof", pid: this.pid });
  }

  /** Ends it: it traps at its next check. */
  kill(): void {
    this.sandbox.send({ op: "kill", pid: this.pid });
  }

  /**
   * Counts a line of its output the core has handled; every quarter of its
   * output window, tells its sandbox (`output_window.ts`), whose writes wait past it.
   */
  took(line: string): void {
    const count = this.untold + line.length + 1;
    if (count < this.tookEvery) {
      this.untold = count;
      return;
    }
    this.untold = 0;
    this.sandbox.send({ op: "took", pid: this.pid, count });
  }
}
