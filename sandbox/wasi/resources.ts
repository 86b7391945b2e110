/**
 * The host resources of one process (open files, sockets, timers): all of
 * them are released when the process ends, whatever way it ends, so a
 * sandbox starts its next process clean.
 *
 * @module
 */

/** How long a process's end waits for releases that finish later (a listener's port). */
export const RELEASE_WAIT_MS = 1000;

/** Release functions of a process's resources. */
export class ProcessResources {
  private releases = new Set<() => void | Promise<void>>();

  /**
   * Registers a release function; returns a function that unregisters it
   * (when the guest released it itself). A release that finishes later (a
   * listener frees its port only once its pending accept has ended) returns
   * a promise.
   */
  add(release: () => void | Promise<void>): () => void {
    this.releases.add(release);
    return () => this.releases.delete(release);
  }

  /**
   * Releases everything still registered (process end); resolves once what
   * finishes later has finished, or after `RELEASE_WAIT_MS`: a process is
   * reported ended only when its ports are free again.
   */
  async releaseAll(): Promise<void> {
    const later: Promise<void>[] = [];
    for (const r of this.releases) {
      try {
        const done = r();
        if (done) later.push(done.catch(() => {}));
      } catch { /* already released */ }
    }
    this.releases.clear();
    if (!later.length) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(later),
      new Promise<void>((r) => (timer = setTimeout(r, RELEASE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}
