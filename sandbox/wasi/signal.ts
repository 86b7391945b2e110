/**
 * An edge-triggered wake-up for the pollables of host resources: background work
 * (a socket read, an accept, a lookup) calls `notify`, and pollables wait on
 * `wait` and then re-check their state.
 *
 * @module
 */

/** Wakes everyone waiting since the last `notify`. */
export class Signal {
  private next: PromiseWithResolvers<void> | undefined;

  /** Resolves at the next `notify`. All waiters of one round share one promise. */
  wait(): Promise<void> {
    this.next ??= Promise.withResolvers<void>();
    return this.next.promise;
  }

  /** Wakes the current waiters. */
  notify(): void {
    const next = this.next;
    this.next = undefined;
    next?.resolve();
  }
}
