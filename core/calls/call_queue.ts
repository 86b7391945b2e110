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
 * Fair across callers (issue 36): the whole world has at most
 * `world_calls_starting` calls starting. Past it, the callers with calls
 * waiting take turns, round robin, one call each per round (not first come
 * first served): beside 100 flooding callers, another caller's call waits
 * for at most one call of each of them, plus those already starting. For
 * the world a call counts as starting for up to {@link WORLD_STARTING_MS}
 * (a call waiting in a loaded sandbox's queue takes longer than 20 ms, and
 * leaving then let more in ahead), less when later calls overtake it.
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

/**
 * How long a call counts as starting for the world's bound
 * (`world_calls_starting`), unless it answers, ends or is overtaken first
 * (ms): longer than {@link STARTING_MS}, so that calls still waiting in a
 * loaded sandbox's queue do not leave it (and let more in ahead of a polite
 * caller's). A slow call leaves it sooner: once as many calls let go after
 * it have answered as the world lets start (it runs; it is not waiting).
 */
export const WORLD_STARTING_MS = 100;

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
  /** Its place in the order calls were let go. */
  seq: number;
  /** Calls let go after it that have answered. */
  overtaken: number;
  /** Ends its starting time for the world early; unset once it no longer counts there. */
  cancelWorld?: () => void;
}

/**
 * Starts calls at most `limit` in flight and `startingLimit` starting at a
 * time per caller, the rest in order; at most `worldStarting` starting in
 * all, the callers that wait taking turns.
 */
export class CallQueue {
  private lanes = new WeakMap<Caller, Lane>();
  /** The lanes with calls waiting, in turn order: the front one goes next (when it has room). */
  private turns = new Set<Lane>();
  /** Calls starting over all callers (counted from their start to `leaveWorld`). */
  private startingAll = 0;
  /** The calls that count in `startingAll` and have a process. */
  private worldCalls = new Set<Call>();
  /** The `seq` of the last call let go. */
  private seq = 0;
  /** The calls in flight, by the process that runs each. */
  private calls = new WeakMap<Process, Call>();
  /** The starting windows' ends, on one timer (a window ends up to 5 ms late). */
  private deadlines = new Deadlines(5);

  /**
   * @param limit calls in flight per caller (`calls_in_flight`)
   * @param maxWaiting calls that may wait per caller (`processes`)
   * @param startingLimit calls starting per caller (`calls_starting`)
   * @param worldStarting calls starting over all callers (`world_calls_starting`)
   */
  constructor(
    private limit: number,
    private maxWaiting: number,
    private startingLimit = limit,
    private worldStarting = Infinity,
  ) {}

  /** Calls starting now, over all callers. */
  get starting(): number {
    return this.startingAll;
  }

  /**
   * Runs `start` now when `caller` has room, else once it has. `start`
   * must call {@link started} with the process, or {@link failed}.
   * Throws -32004 when the caller's queue is full.
   */
  enter(caller: Caller, start: () => void): void {
    let lane = this.lanes.get(caller);
    if (!lane) this.lanes.set(caller, lane = { inFlight: 0, starting: 0, waiting: [] });
    // (When the world has room, no lane that waits has room of its own: none is passed over.)
    if (lane.waiting.length === 0 && this.hasRoom(lane) && this.worldHasRoom()) {
      return this.go(lane, start);
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
    this.turns.add(lane); // at the back, unless it is in line already
  }

  /** The call `start` made runs as `p`: its room is given back when it answers or ends. */
  started(caller: Caller, p: Process): void {
    const call: Call = { caller, seq: ++this.seq, overtaken: 0 };
    call.cancelStarting = this.deadlines.add(STARTING_MS, () => {
      call.cancelStarting = undefined;
      this.doneStarting(caller);
    });
    call.cancelWorld = this.deadlines.add(WORLD_STARTING_MS, () => {
      call.cancelWorld = undefined;
      this.leaveWorld(call);
      this.next();
    });
    this.worldCalls.add(call);
    this.calls.set(p, call);
    p.ended.then(() => this.finished(p));
  }

  /** The call `start` made could not start: its room goes to the next. */
  failed(caller: Caller): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    lane.inFlight--;
    lane.starting--;
    this.startingAll--;
    this.next();
  }

  /** `p` answered or ended: the next waiting call of its caller starts (once per process). */
  finished(p: Process): void {
    const call = this.calls.get(p);
    if (!call) return;
    this.calls.delete(p);
    if (this.worldCalls.has(call)) this.leaveWorld(call);
    // The calls let go before it that still count for the world have been overtaken once more.
    for (const c of this.worldCalls) {
      if (c.seq < call.seq && ++c.overtaken >= this.worldStarting) this.leaveWorld(c);
    }
    const lane = this.lanes.get(call.caller);
    if (lane) {
      lane.inFlight--;
      if (call.cancelStarting !== undefined) {
        call.cancelStarting();
        lane.starting--;
      }
    }
    this.next();
  }

  /** `call` no longer counts as starting for the world (once). */
  private leaveWorld(call: Call): void {
    if (!this.worldCalls.delete(call)) return;
    call.cancelWorld?.();
    call.cancelWorld = undefined;
    this.startingAll--;
  }

  /** A call of `caller` has run {@link STARTING_MS}: it no longer counts as starting. */
  private doneStarting(caller: Caller): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    lane.starting--;
    this.next();
  }

  private worldHasRoom(): boolean {
    return this.startingAll < this.worldStarting;
  }

  private hasRoom(lane: Lane): boolean {
    return lane.inFlight < this.limit && lane.starting < this.startingLimit;
  }

  private go(lane: Lane, start: () => void): void {
    lane.inFlight++;
    lane.starting++;
    this.startingAll++;
    start();
  }

  /**
   * Starts waiting calls while the world has room: one of the first lane in
   * turn that has room of its own, which then goes to the back of the line.
   */
  private next(): void {
    while (this.worldHasRoom()) {
      let lane: Lane | undefined;
      for (const l of this.turns) {
        if (this.hasRoom(l)) {
          lane = l;
          break;
        }
      }
      if (!lane) return;
      const start = lane.waiting.shift()!;
      this.turns.delete(lane);
      if (lane.waiting.length) this.turns.add(lane);
      this.go(lane, start);
    }
  }
}
