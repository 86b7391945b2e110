/**
 * `wasi:io/poll`: pollables and `poll`. A pollable knows whether it is ready
 * now and how to wait until it is; `poll` waits on the event loop (JSPI
 * suspends the guest meanwhile).
 *
 * @module
 */

/** Something a guest can wait for. */
export class Pollable {
  /**
   * @param isReady true when the event has happened
   * @param wait resolves when the event may have happened
   */
  constructor(
    private isReady: () => boolean,
    private wait: () => Promise<void>,
    /** A clock's: when it becomes ready, in ms on `performance.now()` (`poll` uses one timer). */
    readonly deadline?: number,
  ) {}

  /** True when the event has happened. */
  ready(): boolean {
    return this.isReady();
  }

  /** Waits until the event has happened. */
  async block(): Promise<void> {
    while (!this.isReady()) await this.wait();
  }

  /** Resolves when this pollable may have become ready. */
  waitOnce(): Promise<void> {
    return this.wait();
  }
}

/** A pollable that is always ready. */
export function readyPollable(): Pollable {
  return new Pollable(() => true, () => Promise.resolve());
}

/**
 * The most pollables one `poll` takes (a trap past it): the same bound as
 * preview 1's `poll_oneoff`.
 */
export const MAX_POLLABLES = 4096;

/**
 * Waits until at least one pollable is ready; returns the indexes of the
 * ready ones. Clocks wait on one timer, for the earliest deadline (cleared
 * when `poll` returns), however many there are.
 */
export async function poll(list: Pollable[]): Promise<Uint32Array> {
  if (list.length === 0) throw new Error("poll needs at least one pollable");
  if (list.length > MAX_POLLABLES) {
    throw new Error(`poll of ${list.length} pollables: at most ${MAX_POLLABLES} a call`);
  }
  for (;;) {
    const ready: number[] = [];
    list.forEach((p, i) => p.ready() && ready.push(i));
    if (ready.length > 0) return new Uint32Array(ready);
    let earliest = Infinity;
    const waits = new Set<Promise<void>>();
    for (const p of list) {
      if (p.deadline !== undefined) earliest = Math.min(earliest, p.deadline);
      else waits.add(p.waitOnce());
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (earliest !== Infinity) {
      const ms = Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(earliest - performance.now())));
      waits.add(new Promise((r) => (timer = setTimeout(r, ms))));
    }
    try {
      await Promise.race(waits);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The `wasi:io/poll` interface. */
export const pollInterface = { Pollable, poll };
