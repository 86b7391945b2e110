/**
 * Hides the host's own `rpc.discover` calls (made by the core at start and
 * at each activation) from `sausage log`, so that a plugin's own calls are
 * what one sees; `--all` shows them.
 *
 * @module
 */

import type { Entry } from "../core/journal/journal.ts";

/** Decides, entry by entry (oldest first), which entries belong to a discovery call of the core. */
export class DiscoveryFilter {
  private hidden = new Set<string>();

  /** True when `e` is not part of a core's `rpc.discover` call. */
  keep(e: Entry): boolean {
    if (this.hidden.has(e.pid)) return false;
    if (e.stream === "core" && e.line.startsWith('{"event":"start"')) {
      try {
        const start = JSON.parse(e.line);
        if (start.method === "rpc.discover" && start.parent === "core") {
          this.hidden.add(e.pid);
          return false;
        }
      } catch { /* not an event */ }
    }
    return true;
  }
}
