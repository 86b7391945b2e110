/**
 * Fair starts: instantiating a guest takes the thread, so starts take turns
 * as one more guest (DECISIONS.md, "Many processes per sandbox"). They go one
 * at a time while the starts of this turn of the event loop took less than
 * {@link SLICE_MS}, else at the next turn, one start of each asker (the
 * parent) in turn: one asker's flood of processes cannot hold the thread.
 *
 * @module
 */

import { clock, nextTurn, SLICE_MS, turn } from "./event_turns.ts";

/** Starts waiting to instantiate, by who asked for them (`SAUSAGE_PARENT`), in arrival order. */
const admissions = new Map<string, (() => void)[]>();
/** An admitted start is instantiating now (starts go one at a time). */
let admitting = false;
/** The next turn's admissions are scheduled. */
let pumping = false;
/** The time starts (instantiations) took in the turn `startTurn` (they get a slice of their own). */
let startUsed = 0;
let startTurn = -1;
/** When the start now instantiating was let go. */
let startAt = 0;

/** True while starts may go in this turn: they took less than {@link SLICE_MS} of it. */
function startsMayGo(): boolean {
  if (startTurn !== turn) {
    startTurn = turn;
    startUsed = 0;
  }
  return startUsed < SLICE_MS;
}

/** Lets the next start go: the askers take turns, one start each. */
function admitNext(): void {
  const [key, queue] = admissions.entries().next().value!;
  const go = queue.shift()!;
  admissions.delete(key);
  if (queue.length) admissions.set(key, queue); // to the back of the line
  admitting = true;
  startAt = clock();
  go();
}

/** Admits waiting starts at the next turn. */
function pump(): void {
  if (pumping) return;
  pumping = true;
  nextTurn(() => {
    pumping = false;
    if (!admitting && admissions.size) admitNext();
  }, true);
}

/** The start of one process, in turn with the others. */
export class FairStart {
  private admittedYet = false;

  /** @param asker who asked for the process (its parent): starts are fair between askers */
  constructor(readonly asker: string) {}

  /**
   * Resolves when this process may instantiate: at once while the slice
   * lasts and nobody waits, else in turn with the others that wait (one
   * start of each asker in turn). Call {@link admitted} when done.
   */
  admit(): Promise<void> | undefined {
    if (!admitting && admissions.size === 0 && startsMayGo()) {
      admitting = this.admittedYet = true;
      startAt = clock();
      return undefined;
    }
    return new Promise<void>((resolve) => {
      let queue = admissions.get(this.asker);
      if (!queue) admissions.set(this.asker, queue = []);
      queue.push(() => {
        this.admittedYet = true;
        resolve();
      });
      if (!admitting) pump();
    });
  }

  /** The instantiation {@link admit} let go has ended: the next start goes, or waits a turn. */
  admitted(): void {
    if (!this.admittedYet) return;
    this.admittedYet = false;
    admitting = false;
    if (startsMayGo()) startUsed += clock() - startAt;
    if (!admissions.size) return;
    if (startsMayGo()) admitNext();
    else pump();
  }
}
