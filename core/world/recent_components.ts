/**
 * What `stat` said of each plugin's `plugin.wasm` a moment ago: a call
 * reuses it for {@link RECHECK_MS} instead of a `stat` per call (issue 38).
 * The core's own installs (activation, revert) forget a plugin's entry as
 * they rename the file, so no call after an activation runs the version
 * before it; a copy by hand is seen within {@link RECHECK_MS}, or as soon
 * as the world's watcher reports it.
 *
 * @module
 */

/** How long what one `stat` said of a `plugin.wasm` stands for the calls that follow. */
export const RECHECK_MS = 100;

/** A plugin's current component, as `World.pluginComponent` gives it. */
export interface Component {
  /** The real path of its `plugin.wasm`. */
  path: string;
  /** What `stat` said of it. */
  info?: Deno.FileInfo;
}

/** Each plugin's component as last checked, with when. */
export class RecentComponents {
  private known = new Map<string, { component: Component; at: number }>();

  /** The component checked less than {@link RECHECK_MS} ago, else `check()`'s (kept for the next calls). */
  get(name: string, check: () => Component): Component {
    const now = performance.now();
    const known = this.known.get(name);
    if (known !== undefined && now - known.at < RECHECK_MS) return known.component;
    const component = check();
    this.known.set(name, { component, at: now });
    return component;
  }

  /** Forgets what was checked of `name` (its file was just replaced, or the watcher saw it change). */
  forget(name: string): void {
    this.known.delete(name);
  }
}
