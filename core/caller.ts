/**
 * Who makes a call: a process, a client of the control socket (the CLI, later
 * the console), or the core itself (boot). Each caller gets answers and
 * notifications through `deliver`, and owns the attached processes it started.
 *
 * @module
 */

import type { Message } from "../rpc/message.ts";
import type { Process } from "./process.ts";

/** Anything that can make calls. */
export interface Caller {
  /** What children see as `SAUSAGE_PARENT`: `console`, `core`, or a pid. */
  readonly name: string;
  /** The attached processes this caller started; they stop when it ends. */
  readonly children: Set<Process>;
  /** True once the caller has ended: its late answers and notifications are dropped. */
  readonly hasEnded: boolean;
  /** Hands a response or notification to the caller. */
  deliver(msg: Message): void;
}
