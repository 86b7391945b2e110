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
  constructor(private isReady: () => boolean, private wait: () => Promise<void>) {}

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

/** Waits until at least one pollable is ready; returns the indexes of the ready ones. */
export async function poll(list: Pollable[]): Promise<Uint32Array> {
  if (list.length === 0) throw new Error("poll needs at least one pollable");
  for (;;) {
    const ready: number[] = [];
    list.forEach((p, i) => p.ready() && ready.push(i));
    if (ready.length > 0) return new Uint32Array(ready);
    await Promise.race(list.map((p) => p.waitOnce()));
  }
}

/** The `wasi:io/poll` interface. */
export const pollInterface = { Pollable, poll };
