/**
 * Many deadlines on one timer. Every call has two (its starting window in
 * `call_queue.ts`, its time limit in `process_lifecycle.ts`), and nearly
 * all of them are cancelled long before they are due: a `setTimeout` and a
 * `clearTimeout` each cost the core a timer in Deno's heap and its
 * bookkeeping, per call. Here a deadline is an entry in a bucket of
 * `grainMs` (a `Set` insert; cancelling is a delete), and one `setTimeout`
 * waits for the earliest bucket. A deadline fires at most one grain late,
 * never early.
 *
 * With none left, the timer keeps nothing alive: one due soon fires once
 * and stops; one due later is unref'd (`Deno.unrefTimer`) and kept for the
 * next deadline, which refs it again. A lone caller's calls each add and
 * cancel a time limit 60 s away: clearing the timer at each cancel and
 * setting it again at the next call cost a `clearTimeout` and a
 * `setTimeout` per call (1.6-2 µs in a loop, against 0.1 for an unref and
 * a ref).
 *
 * @module
 */

/** How soon a timer with no deadline left may still fire rather than be cleared, in ms. */
const KEEP_MS = 50;

/** Deadlines that share one timer, at a grain of `grainMs`. */
export class Deadlines {
  /** The callbacks due in each grain (the grain's number: due time / `grainMs`, rounded up). */
  private buckets = new Map<number, Set<() => void>>();
  /** The grains that have a bucket, as a binary min-heap. */
  private heap: number[] = [];
  /** The grain the timer waits for, if it waits. */
  private armed: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The timer is unref'd: no deadline waits, and it keeps nothing alive until one does. */
  private idle = false;
  /** How many deadlines wait: with none, no timer runs (nothing keeps the process alive). */
  private live = 0;
  /** Counts `clear`s: a cancel made for an earlier generation does nothing. */
  private generation = 0;

  /**
   * @param grainMs how late a deadline may fire, at most
   * @param now the clock, in ms
   */
  constructor(
    private readonly grainMs = 10,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs `fn` once `ms` have passed (up to a grain later); returns what cancels it. */
  add(ms: number, fn: () => void): () => void {
    const grain = Math.ceil((this.now() + ms) / this.grainMs);
    let bucket = this.buckets.get(grain);
    if (!bucket) {
      this.buckets.set(grain, bucket = new Set());
      push(this.heap, grain);
    }
    const entry = () => fn(); // its own identity: one fn may be added twice
    bucket.add(entry);
    this.live++;
    if (this.armed === undefined || grain < this.armed) this.arm(grain);
    else if (this.idle) this.wake();
    const generation = this.generation;
    return () => {
      if (generation !== this.generation || !bucket.delete(entry) || --this.live > 0) return;
      // None left: a timer due soon fires once and stops (the next call's deadline would need
      // it again); one due later is unref'd now, so that nothing keeps the process alive, and
      // kept for the next deadline (it fires, finds none and stops, unless one came).
      if (this.armed! * this.grainMs - this.now() > KEEP_MS) this.sleep();
    };
  }

  /** How many deadlines wait (cancelled ones are gone at once). */
  get size(): number {
    return this.live;
  }

  /** Drops every deadline and the timer (the host shuts down). */
  clear(): void {
    clearTimeout(this.timer);
    this.timer = this.armed = undefined;
    this.idle = false;
    this.generation++; // later cancels of what was here count nothing
    this.buckets.clear();
    this.heap.length = 0;
    this.live = 0;
  }

  private arm(grain: number): void {
    clearTimeout(this.timer);
    this.armed = grain;
    this.idle = false;
    this.timer = setTimeout(() => this.fire(), Math.max(0, grain * this.grainMs - this.now()));
  }

  /**
   * No deadline waits: the timer stays, unref'd; the empty buckets go (a
   * lone caller's time limits would otherwise keep one per grain until due).
   */
  private sleep(): void {
    if (this.idle || this.timer === undefined) return;
    this.idle = true;
    Deno.unrefTimer(this.timer as unknown as number);
    this.buckets.clear();
    this.heap.length = 0;
  }

  /** A deadline waits again: the kept timer holds the process again. */
  private wake(): void {
    this.idle = false;
    Deno.refTimer(this.timer as unknown as number);
  }

  private fire(): void {
    this.timer = this.armed = undefined;
    this.idle = false;
    const now = this.now() / this.grainMs;
    const failures: unknown[] = [];
    while (this.heap.length && this.heap[0] <= now) {
      const grain = pop(this.heap);
      const bucket = this.buckets.get(grain)!;
      this.buckets.delete(grain);
      this.live -= bucket.size;
      const due = [...bucket];
      bucket.clear(); // a cancel after its deadline fired finds nothing (and counts nothing)
      for (const fn of due) {
        try {
          fn();
        } catch (e) {
          failures.push(e); // the others still run; the error stays uncaught, as a timer's would
        }
      }
    }
    if (this.live === 0) this.clear();
    else if (this.heap.length) this.arm(this.heap[0]);
    for (const e of failures) {
      queueMicrotask(() => {
        throw e;
      });
    }
  }
}

/** Adds `n` to the min-heap `h`. */
function push(h: number[], n: number): void {
  let i = h.push(n) - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (h[parent] <= n) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = n;
}

/** Takes the least of the min-heap `h` (not empty). */
function pop(h: number[]): number {
  const top = h[0];
  const last = h.pop()!;
  if (h.length === 0) return top;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= h.length) break;
    const c = l + 1 < h.length && h[l + 1] < h[l] ? l + 1 : l;
    if (h[c] >= last) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = last;
  return top;
}
