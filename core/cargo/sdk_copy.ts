/**
 * The world's copy of the SDK (`plugins/cargo/sdk/`), which `cargo.build`
 * builds against: brought up to date from the SDK once per host, on the
 * first use, and journaled (`sdk-copied`) when it changed.
 *
 * @module
 */

import { syncSdk, worldSdkDir } from "./world_sdk.ts";
import type { Journal } from "../journal/journal.ts";

/** The world's SDK copy, synced once per host. */
export class SdkCopy {
  private copy: Promise<string> | null = null;

  /**
   * @param root the world folder
   * @param from the SDK to copy; null: no copy, the world's folder as it is
   * @param journal where a copy is recorded
   * @param stamp where what both folders looked like after the last sync is kept
   *   (`state/core/sdk-copy.json`, which guests cannot write)
   */
  constructor(
    private root: string,
    private from: string | null,
    private journal: Journal,
    private stamp?: string,
  ) {}

  /**
   * Brings the world's SDK copy up to date (once) and resolves with its
   * folder; with no SDK to copy from, the world's folder as it is.
   */
  folder(): Promise<string> {
    const to = worldSdkDir(this.root);
    const from = this.from;
    if (from === null) return Promise.resolve(to);
    if (!this.copy) {
      const copy = syncSdk(from, this.root, this.stamp).then((did) => {
        if (did === "copied") {
          this.journal.coreEvent("sdk-copied", { from, to: "/plugins/cargo/sdk" });
        }
        return to;
      });
      this.copy = copy;
      copy.catch(() => {
        if (this.copy === copy) this.copy = null; // the next use tries again
      });
    }
    return this.copy;
  }

  /** Forgets a failed copy, so that the next `folder()` tries again. */
  retry(): void {
    this.copy = null;
  }
}
