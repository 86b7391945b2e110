/**
 * Fair starts of calls (issue 23): each caller has at most a few calls of
 * plugins in flight (started, and neither answered nor ended), and fewer
 * still *starting* (started less than {@link STARTING_MS} ago and not yet
 * answered); its further calls wait in its own queue, in order, and start
 * as earlier ones answer, end or have run that long. So one plugin's flood
 * of short nested calls keeps only a few of them in the sandboxes' pipes
 * and start queues, ahead of another caller's call: a flood of 10,000 made
 * a caller beside it wait 7.8–42 s before any bound, p99 ~100 ms with 64
 * in flight, ~20 ms with 4 starting (DECISIONS.md, "A flood of calls").
 * Calls that run longer leave the starting window after {@link STARTING_MS}:
 * a caller still runs up to `calls_in_flight` of them at once. The limits
 * are `calls_in_flight` and `calls_starting` in `config/limits.json`; a
 * caller's queue holds at most `processes` calls.
 *
 * @module
 */

import { Deadlines } from "./deadlines.ts";
import { HostError } from "../../rpc/errors.ts";
import type { Caller, Process } from "../processes/process.ts";

/**
 * How long a call counts as starting, unless it answers or ends first (ms):
 * longer than a short call's way through a busy sandbox and back (a few ms
 * on an idle machine, tens under a flood), short enough that a fan-out of
 * slow calls (waiting on the network, a timer) is not held back much.
 */
export const STARTING_MS = 20;

/** A caller's calls in flight, those of them still starting, and the starts that wait. */
interface Lane {
  inFlight: number;
  starting: number;
  waiting: (() => void)[];
}

/** What the queue knows of a call in flight. */
interface Call {
  caller: Caller;
  /** Ends its starting time early; unset once it no longer counts as starting. */
  cancelStarting?: () => void;
}

/**
 * Starts calls at most `limit` in flight and `startingLimit` starting at a
 * time per caller, the rest in order.
 */
export class CallQueue {
  private lanes = new WeakMap<Caller, Lane>();
  /** The calls in flight, by the process that runs each. */
  private calls = new WeakMap<Process, Call>();
  /** The starting windows' ends, on one timer (a window ends up to 5 ms late). */
  private deadlines = new Deadlines(5);

  /**
   * @param limit calls in flight per caller (`calls_in_flight`)
   * @param maxWaiting calls that may wait per caller (`processes`)
   * @param startingLimit calls starting per caller (`calls_starting`)
   */
  constructor(
    private limit: number,
    private maxWaiting: number,
    private startingLimit = limit,
  ) {}

  /**
   * Runs `start` now when `caller` has room, else once it has. `start`
   * must call {@link started} with the process, or {@link failed}.
   * Throws -32004 when the caller's queue is full.
   */
  enter(caller: Caller, start: () => void): void {
    let lane = this.lanes.get(caller);
    if (!lane) this.lanes.set(caller, lane = { inFlight: 0, starting: 0, waiting: [] });
    if (lane.waiting.length === 0 && this.hasRoom(lane)) return this.go(lane, start);
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
    const call: Call = { caller };
    call.cancelStarting = this.deadlines.add(STARTING_MS, () => {
      call.cancelStarting = undefined;
      this.doneStarting(caller);
    });
    this.calls.set(p, call);
    p.ended.then(() => this.finished(p));
  }

  /** The call `start` made could not start: its room goes to the next. */
  failed(caller: Caller): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    lane.inFlight--;
    lane.starting--;
    this.next(lane);
  }

  /** `p` answered or ended: the next waiting call of its caller starts (once per process). */
  finished(p: Process): void {
    const call = this.calls.get(p);
    if (!call) return;
    this.calls.delete(p);
    const lane = this.lanes.get(call.caller);
    if (!lane) return;
    lane.inFlight--;
    if (call.cancelStarting !== undefined) {
      call.cancelStarting();
      lane.starting--;
    }
    this.next(lane);
  }

  /** A call of `caller` has run {@link STARTING_MS}: it no longer counts as starting. */
  private doneStarting(caller: Caller): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    lane.starting--;
    this.next(lane);
  }

  private hasRoom(lane: Lane): boolean {
    return lane.inFlight < this.limit && lane.starting < this.startingLimit;
  }

  private go(lane: Lane, start: () => void): void {
    lane.inFlight++;
    lane.starting++;
    start();
  }

  /** Starts the waiting calls the lane has room for, in order. */
  private next(lane: Lane): void {
    while (lane.waiting.length && this.hasRoom(lane)) this.go(lane, lane.waiting.shift()!);
  }
}
