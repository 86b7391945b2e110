/**
 * Sharing one thread among many guests: time slices, kills, memory limits
 * and fair starts (DECISIONS.md, "Many processes per sandbox").
 *
 * ## The contract with a binding
 *
 * Whatever instantiates guests (jco's glue through {@link GuestControl.instantiateCore},
 * or a binding of its own) keeps these rules, one {@link GuestControl} per process:
 *
 * 1. Every core module instrumented by `wasm/preempt.ts` gets the imports of
 *    {@link GuestControl.preemptImports} as its `sausage:preempt` namespace:
 *    `check` (plain: traps a killed guest, returns the next fuel, or 0 when
 *    the slice is used up and the guest may suspend), `yield` (a
 *    `WebAssembly.Suspending`: resumes the guest after the others had a
 *    turn) and `grow` (the memory limit). Its instance goes to
 *    {@link GuestControl.adopt}, which takes its `sausage:expire` export.
 * 2. Every host function the guest calls is wrapped: ones that never wait
 *    with {@link GuestControl.hostCall} (they count against the slice, and
 *    make the next check come at once when it is used up), ones that may
 *    return a promise with {@link GuestControl.guard} (then given to
 *    `WebAssembly.Suspending`; they fail at once when the guest is killed,
 *    and a guest that comes back to a used-up slice waits for the next turn).
 * 3. Before instantiating, `await guest.admit()` (fair starts: one asker's
 *    flood of processes cannot hold the thread: `fair_starts.ts`), and `guest.admitted()`
 *    once instantiated or failed; `guest.started()` right before the entry
 *    export runs under `promising`.
 * 4. Every call from JavaScript into wasm other than the entry (a
 *    `cabi_realloc`, a post-return) runs through `reentry` (`guest_linking.ts`): the guest
 *    cannot suspend there (JSPI's rule: no JavaScript frame between the
 *    suspension and the `promising` export), so a check there never asks to
 *    yield; a guest that holds the thread for {@link UNPAUSABLE_MS} where
 *    it cannot be paused (a start function, constructors run from the glue)
 *    is ended alone.
 *
 * ## Slices
 *
 * Each guest runs at most `SLICE_MS` per turn of the event loop (turns
 * are counted by a `setImmediate`), then yields at its next check or host
 * call: a host call that returns at once (a `stat`, a write) does not give
 * it a new slice, only a turn does. So the pipe to the core, the other
 * guests and new starts get the thread after each runnable guest had its
 * slice. Checks are decided by time; the fuel (loop iterations and calls
 * between checks) starts small ({@link INITIAL_FUEL}) and adapts so that
 * checks come about every {@link CHECK_MS}; host calls look at the clock
 * every few calls (adapted the same way) and make the next check come at
 * once past the slice; bulk memory operations go in chunks of 256 KiB and
 * look at the clock between two (`bulk`, `wasm/preempt.ts`), without
 * touching the loops' fuel. Starts take turns too, as one more guest
 * (`fair_starts.ts`); turns and the slice's length are `event_turns.ts`'s.
 *
 * @module
 */

import type { MemoryShare } from "./memory_share.ts";
import {
  BULK_IMPORT,
  CHECK_IMPORT,
  GROW_IMPORT,
  INITIAL_FUEL,
  YIELD_IMPORT,
} from "../../wasm/preempt.ts";
import { clock, nextTurn, SLICE_MS, turn } from "./event_turns.ts";
import { FairStart } from "./fair_starts.ts";
import {
  adoptInstance,
  depth,
  type Fn,
  instantiateOwned,
  linkCore,
  OriginalSuspending,
} from "./guest_linking.ts";

/**
 * Turns a guest may wait for with its slice used up and still go before
 * older guests (`nextTurn`'s young line): about 8 ms of its own running.
 */
export const YOUNG_TURNS = 4;

/** How often a running guest checks the time, in ms: its fuel adapts to this. */
export const CHECK_MS = 0.25;

/**
 * A guest that holds the thread this long where it cannot be paused (a
 * start function, a call from the glue) is ended, alone, in ms: well under
 * the core's `stall_ms`, which would end every process of the sandbox.
 */
export const UNPAUSABLE_MS = 500;

/** The most fuel between two checks (loop headers and calls). */
const MAX_PERIOD = 2 ** 24;

/** The most host calls between two looks at the clock. */
const MAX_HOST_PERIOD = 1024;

/**
 * The next count of steps between two looks at the clock, when the last
 * `period` steps took `dt` ms: doubled when they took under half of
 * {@link CHECK_MS}, cut towards it when over twice (by at most 8x a time,
 * so that a pause of the whole sandbox by the OS does not leave a cheap
 * loop checking at every step).
 */
function adapt(period: number, dt: number, max: number): number {
  if (dt < CHECK_MS / 2) return Math.min(max, period * 2);
  if (dt > CHECK_MS * 2) return Math.max(1, Math.floor(period * Math.max(CHECK_MS / dt, 1 / 8)));
  return period;
}

/** Thrown into a killed guest at its next check or host call. */
export class GuestKilled extends Error {
  constructor() {
    super("killed");
  }
}

/** The scheduling state of one guest: its fuel, its kill switch, its memory limit. */
export class GuestControl {
  /** Set once the guest was killed. */
  killed = false;
  /** Why the sandbox itself killed it (a broken limit); unset for a kill the core asked for. */
  killReason: string | undefined;
  /** Set when the guest tried to grow its memory past the limit. */
  memoryLimitHit = false;
  /** Set when a grow failed because the sandbox's share of the world's memory was in use. */
  worldMemoryHit = false;
  /** The initial memory (bytes) of a module refused for `memory_mib` or the share, if one was. */
  initialRefused: number | undefined;
  /** The bytes its initial memories and grows took from the sandbox's share (given back by `releaseMemory`). */
  private grown = 0;
  /** Loop iterations and calls between two checks. */
  private period = INITIAL_FUEL;
  private lastCheck = -Infinity;
  /** When this guest's slice began, and in which turn of the event loop. */
  private sliceStart = 0;
  private sliceTurn = -1;
  /** Turns it waited for with its slice used up: while few, it is young (`nextTurn`). */
  private turnsWaited = 0;
  /** Host calls between two looks at the clock, and how many are left. */
  private hostPeriod = 1;
  private hostLeft = 1;
  private lastHostCheck = -Infinity;
  /** The `sausage:expire` functions of its instrumented instances (fuel := 1). */
  private expirers: (() => void)[] = [];
  private waiting = new Set<(e: unknown) => void>();
  /** Its host calls whose own promise has not settled (a kill fails the wait, not the call). */
  private unsettled = 0;
  /** Its start, in turn with the others'. */
  private start: FairStart;

  /**
   * @param memoryLimit the most bytes any one memory of the guest may have
   * @param share the sandbox's share of the world's memory, which its grows draw on
   * @param asker who asked for the process (its parent): starts are fair between askers
   */
  constructor(
    readonly memoryLimit: number,
    readonly share?: MemoryShare,
    readonly asker = "",
  ) {
    this.start = new FairStart(asker);
  }

  /**
   * Charges a module's initial memory (`bytes`) before it is allocated: false
   * (and {@link initialRefused} set) when it passes the memory limit or the
   * sandbox's share of the world's memory. `force` charges it anyway (the
   * memory exists already: a kept one larger than asked).
   */
  chargeInitial(bytes: number, force = false): boolean {
    if (bytes <= 0) return true;
    if (!force && bytes > this.memoryLimit) {
      this.memoryLimitHit = true;
      this.initialRefused = bytes;
      return false;
    }
    if (this.share && !this.share.take(bytes, force)) {
      this.worldMemoryHit = true;
      this.initialRefused = bytes;
      return false;
    }
    this.grown += bytes;
    return true;
  }

  /** Gives the bytes its grows took back to the sandbox's share (once it has ended). */
  releaseMemory(): void {
    this.share?.give(this.grown);
    this.grown = 0;
  }

  /**
   * Kills the guest: it traps at its next check, and its pending host calls
   * fail now. `reason` is given when the sandbox ends it for breaking a limit.
   */
  kill(reason?: string): void {
    if (this.killed) return;
    this.killed = true;
    this.killReason = reason;
    this.expire();
    for (const reject of this.waiting) reject(new GuestKilled());
    this.waiting.clear();
  }

  /**
   * Resolves when this process may instantiate: at once while the slice
   * lasts and nobody waits, else in turn with the others that wait (one
   * start of each asker in turn). Call {@link admitted} when done.
   */
  admit(): Promise<void> | undefined {
    return this.start.admit();
  }

  /** The instantiation {@link admit} let go has ended: the next start goes, or waits a turn. */
  admitted(): void {
    this.start.admitted();
  }

  /** Instantiates the guest's glue with `f`: the async imports made meanwhile are this guest's. */
  instantiate<T>(f: () => T): T {
    return instantiateOwned(this, f);
  }

  /** Marks the start of the guest's run (its entry export is called next): a fresh slice. */
  started(): void {
    this.lastCheck = this.sliceStart = clock();
    this.sliceTurn = turn;
  }

  /**
   * The time now (ms); the guest's slice starts at its first look in a turn
   * of the event loop: a host call that returns at once (within the turn)
   * does not give it a new one.
   */
  private now(): number {
    const t = clock();
    if (this.sliceTurn !== turn) {
      this.sliceStart = t;
      this.sliceTurn = turn;
    }
    return t;
  }

  /** True when the guest's slice is used up at time `t` (from {@link now}). */
  private spent(t: number): boolean {
    return t - this.sliceStart >= SLICE_MS;
  }

  /**
   * Counts one more wait for a turn; true while the guest has waited for
   * fewer than {@link YOUNG_TURNS}: it then goes before the guests that have
   * run longer (a short call's process does not wait behind every spinner).
   */
  private young(): boolean {
    return ++this.turnsWaited <= YOUNG_TURNS;
  }

  /** Makes every instance of the guest check at its next loop header or call. */
  private expire(): void {
    for (const expire of this.expirers) expire();
  }

  /**
   * Wraps a host function of this guest that never waits: it counts against
   * the slice; when the slice is used up, the guest checks (and yields) at
   * its next loop header or call.
   */
  hostCall(fn: Fn): Fn {
    return (...args: unknown[]) => {
      const r = fn(...args);
      if (--this.hostLeft <= 0) this.lookAtClock();
      return r;
    };
  }

  /** Every few host calls: adapts how many, and makes the next check come at once past the slice. */
  private lookAtClock(): void {
    const t = this.now();
    if (this.lastHostCheck >= this.sliceStart) {
      const dt = t - this.lastHostCheck;
      this.hostPeriod = adapt(this.hostPeriod, dt, MAX_HOST_PERIOD);
    }
    this.lastHostCheck = t;
    this.hostLeft = this.hostPeriod;
    if (this.spent(t)) this.expire();
  }

  /**
   * Wraps a host function of this guest that may return a promise (given
   * to `WebAssembly.Suspending`): it fails with {@link GuestKilled} at once
   * when the guest is killed; a guest that comes back to a used-up slice
   * (the call returned at once, or others ran meanwhile) waits for the next
   * turn. A plain value is returned as it is, and counts as a host call.
   */
  guard(fn: Fn): Fn {
    return (...args: unknown[]) => {
      if (this.killed) throw new GuestKilled();
      const r = fn(...args);
      if (r instanceof Promise) return this.wait(this.counted(r));
      if (--this.hostLeft <= 0) this.lookAtClock();
      return r;
    };
  }

  /**
   * How many of its host calls are still running: one that settles after
   * the guest ended may still write into the memory it had (jco's glue
   * writes its results after the await), so that memory must not go to
   * another process while this is above 0.
   */
  get pendingCalls(): number {
    return this.unsettled;
  }

  /** `p`, counted in {@link pendingCalls} until it settles. */
  private counted<T>(p: Promise<T>): Promise<T> {
    this.unsettled++;
    const settled = () => void this.unsettled--;
    p.then(settled, settled);
    return p;
  }

  private wait<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.add(reject);
      const done = (v: T) => {
        if (!this.waiting.delete(reject)) return; // killed meanwhile: rejected already
        if (this.killed) return reject(new GuestKilled());
        resolve(v);
      };
      p.then((v) => {
        if (!this.waiting.has(reject)) return;
        // Suspended, so no JavaScript frame is in between: it may wait a turn.
        if (this.spent(this.now())) nextTurn(() => done(v), this.young());
        else done(v);
      }, (e) => {
        if (this.waiting.delete(reject)) reject(e);
      });
    });
  }

  /**
   * The `check` import, when the fuel ran out: traps a killed guest; 0 (so
   * the guest calls `yield`) when the slice is used up and it may suspend;
   * else more fuel, adapted so that checks come about every {@link CHECK_MS}
   * whatever a loop iteration costs. A guest that cannot suspend and has
   * held the thread for {@link UNPAUSABLE_MS} is ended.
   */
  private check(): number {
    if (this.killed) throw new GuestKilled();
    const t = this.now();
    if (this.lastCheck >= this.sliceStart) {
      const dt = t - this.lastCheck;
      this.period = adapt(this.period, dt, MAX_PERIOD);
    }
    this.lastCheck = t;
    if (!this.spent(t)) return this.period;
    if (depth === 0) return 0;
    this.endIfUnpausable(t);
    return this.period;
  }

  /**
   * The `bulk` import, between two chunks of a `memory.fill` or
   * `memory.copy`: traps a killed guest; 0 (yield) when the slice is used up
   * and it may suspend, else 1. The loops' fuel and its adaptation are left
   * alone (a chunk's time says nothing of a loop iteration's). A guest that
   * cannot suspend is ended past {@link UNPAUSABLE_MS}, as at a check.
   */
  private bulk(): number {
    if (this.killed) throw new GuestKilled();
    const t = this.now();
    if (!this.spent(t)) return 1;
    if (depth === 0) return 0;
    this.endIfUnpausable(t);
    return 1;
  }

  /** Ends a guest that cannot suspend and has held the thread {@link UNPAUSABLE_MS} at time `t`. */
  private endIfUnpausable(t: number): void {
    if (t - this.sliceStart < UNPAUSABLE_MS) return;
    this.kill(
      `ran ${UNPAUSABLE_MS} ms where it cannot be paused (a start function, or ` +
        `constructors run while the host set it up)`,
    );
    throw new GuestKilled();
  }

  /** The `yield` import: resumes the guest with more fuel after the others had a turn. */
  private yield(): Promise<number> {
    return this.wait(new Promise<void>((r) => nextTurn(r, this.young()))).then(() => {
      this.lastCheck = this.now();
      return this.period;
    });
  }

  /** The `grow` import: the page delta for `memory.grow`, or -1 (fail) past the limit. */
  private grow(delta: number, size: number): number {
    if (this.killed) throw new GuestKilled();
    if (((size >>> 0) + (delta >>> 0)) * 65536 > this.memoryLimit) {
      this.memoryLimitHit = true;
      return -1;
    }
    const bytes = (delta >>> 0) * 65536;
    if (this.share && !this.share.take(bytes)) {
      this.worldMemoryHit = true;
      return -1;
    }
    this.grown += bytes;
    return delta;
  }

  /** The `sausage:preempt` imports of an instrumented module of this guest. */
  preemptImports(): Record<string, unknown> {
    return {
      [CHECK_IMPORT]: () => this.check(),
      [YIELD_IMPORT]: new OriginalSuspending(() => this.yield()),
      [GROW_IMPORT]: (delta: number, size: number) => this.grow(delta, size),
      [BULK_IMPORT]: () => this.bulk(),
    };
  }

  /**
   * Takes an instance of this guest: its `sausage:expire` (if instrumented) is
   * this guest's to expire (its `sausage:expire`); its functions are known as wasm (not host calls).
   */
  adopt(instance: WebAssembly.Instance): void {
    const expire = adoptInstance(instance);
    if (expire) this.expirers.push(expire);
  }

  /**
   * jco's `instantiateCore` hook for this guest: links wasm to wasm
   * directly, wraps host functions ({@link hostCall}), adds the preemption
   * imports to instrumented modules, and hands the glue export wrappers that
   * count re-entries from JavaScript (`guest_linking.ts`).
   */
  instantiateCore(
    m: WebAssembly.Module,
    imports: Record<string, Record<string, unknown>> = {},
    /** `m` imports `sausage:preempt` (its loader reads that from the bytes: `wasm/import_list.ts`). */
    preemptible = false,
  ): { exports: Record<string, unknown> } {
    return linkCore(this, m, imports, preemptible);
  }
}
