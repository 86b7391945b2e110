/**
 * What an engine loads once per cache entry (a transpiled component's
 * modules and glue, or a main module), shared by every process of that
 * entry in this sandbox: the first process's load is the others' too.
 *
 * @module
 */

/** The loads of one engine, by cache entry folder. */
export class Loads<T> {
  private loaded = new Map<string, Promise<T>>();

  /**
   * @param load reads and compiles the entry at a folder
   * @param retryFailed forget a load that failed, so the next process tries again
   */
  constructor(private load: (dir: string) => Promise<T>, private retryFailed: boolean) {}

  /** The load of the entry at `dir`: started by the first process that asks. */
  of(dir: string): Promise<T> {
    let entry = this.loaded.get(dir);
    if (!entry) {
      entry = this.load(dir);
      this.loaded.set(dir, entry);
      if (this.retryFailed) entry.catch(() => this.loaded.delete(dir));
    }
    return entry;
  }
}
