/**
 * The host resources of one process (open files, sockets, timers): all of
 * them are released when the process ends, whatever way it ends, so a
 * sandbox starts its next process clean.
 *
 * @module
 */

/** Release functions of a process's resources. */
export class ProcessResources {
  private releases = new Set<() => void>();

  /** Registers a release function; returns a function that unregisters it (when the guest released it itself). */
  add(release: () => void): () => void {
    this.releases.add(release);
    return () => this.releases.delete(release);
  }

  /** Releases everything still registered (process end). */
  releaseAll(): void {
    for (const r of this.releases) {
      try {
        r();
      } catch { /* already released */ }
    }
    this.releases.clear();
  }
}
