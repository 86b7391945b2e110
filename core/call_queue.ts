/**
 * Fair starts of calls (issue 23): each caller has at most a few calls of
 * plugins in flight (started, and neither answered nor ended); its further
 * calls wait in its own queue, in order, and start as earlier ones finish.
 * So one plugin's flood of nested calls cannot fill the sandboxes and their
 * pipes ahead of another caller's call: a flood of 10,000 made a caller
 * beside it wait 7.8–42 s before. The limit is `calls_in_flight` in
 * `config/limits.json`; a caller's queue holds at most `processes` calls.
 *
 * @module
 */

import { HostError } from "../rpc/errors.ts";
import type { Caller, Process } from "./process.ts";

/** A caller's calls in flight and the starts that wait. */
interface Lane {
  inFlight: number;
  waiting: (() => void)[];
}

/** Starts calls at most `limit` at a time per caller, the rest in order. */
export class CallQueue {
  private lanes = new WeakMap<Caller, Lane>();
  /** The caller of each process whose call counts as in flight. */
  private owners = new WeakMap<Process, Caller>();

  /**
   * @param limit calls in flight per caller
   * @param maxWaiting calls that may wait per caller
   */
  constructor(private limit: number, private maxWaiting: number) {}

  /**
   * Runs `start` now when `caller` has room, else once it has. `start`
   * must call {@link started} with the process, or {@link failed}.
   * Throws -32004 when the caller's queue is full.
   */
  enter(caller: Caller, start: () => void): void {
    let lane = this.lanes.get(caller);
    if (!lane) this.lanes.set(caller, lane = { inFlight: 0, waiting: [] });
    if (lane.inFlight < this.limit) {
      lane.inFlight++;
      return start();
    }
    if (lane.waiting.length >= this.maxWaiting) {
      throw new HostError(
        "limit-reached",
        `${caller.name} has ${lane.waiting.length} calls waiting to start, its limit ` +
          `("processes" in config/limits.json); ${this.limit} run at once ("calls_in_flight")`,
        { limit: "processes", value: this.maxWaiting },
      );
    }
    lane.waiting.push(start);
  }

  /** The call `start` made runs as `p`: its room is given back when it answers or ends. */
  started(caller: Caller, p: Process): void {
    this.owners.set(p, caller);
    p.ended.then(() => this.finished(p));
  }

  /** The call `start` made could not start: its room goes to the next. */
  failed(caller: Caller): void {
    this.next(caller);
  }

  /** `p` answered or ended: the next waiting call of its caller starts (once per process). */
  finished(p: Process): void {
    const caller = this.owners.get(p);
    if (!caller) return;
    this.owners.delete(p);
    this.next(caller);
  }

  private next(caller: Caller): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    const start = lane.waiting.shift();
    if (start) start();
    else lane.inFlight--;
  }
}
