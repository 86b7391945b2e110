/**
 * The journal's reserve: space set aside beside the journal file
 * (`state/core/journal.reserve`, `journal_reserve_mib` of real blocks) and
 * given back to the journal when the disk fills. A write that fails for a
 * full disk deletes the reserve and is tried again at once, so the entries of
 * what the host has acknowledged reach the file as they would on a disk with
 * room; meanwhile the host refuses new calls (`journal_state.ts`) until the
 * reserve can be made again.
 *
 * @module
 */

/** The reserve's file name, beside the journal. */
export const RESERVE_FILE = "journal.reserve";

/** The bytes written at once while the reserve is made. */
const CHUNK = 1 << 20;

/** True for an error that says the disk (or the file system's quota) is full. */
export function isDiskFull(e: unknown): boolean {
  return /database or disk is full|SQLITE_FULL|No space left|ENOSPC|StorageFull|quota/i.test(
    String(e instanceof Error ? `${e.name}: ${e.message}` : e),
  );
}

/** Space set aside for the journal on its disk. */
export class JournalReserve {
  /** The reserve's path. */
  readonly path: string;
  private held = false;
  /** Why the reserve cannot be made, when not for a full disk (then none is kept, and nothing refused). */
  unavailable: string | null = null;

  /**
   * @param journalPath the journal file (the reserve goes in its folder)
   * @param bytes the reserve's size (0: none)
   */
  constructor(journalPath: string, readonly bytes: number) {
    this.path = `${journalPath.slice(0, journalPath.lastIndexOf("/") + 1)}${RESERVE_FILE}`;
  }

  /**
   * True while the reserve's space is set aside (always, when its size is 0
   * or it cannot be made for another reason than a full disk).
   */
  get isHeld(): boolean {
    return this.bytes === 0 || this.held || this.unavailable !== null;
  }

  /**
   * Makes the reserve when it is missing or short: real blocks (zeros
   * written, not a sparse file). Returns whether it is held now; on a disk
   * without the room, what was written goes again and it returns false.
   */
  make(): boolean {
    if (this.bytes === 0) {
      this.remove(); // none configured: one left by an earlier setting goes
      return true;
    }
    if (this.held || this.unavailable !== null) return true;
    let f: Deno.FsFile | undefined;
    try {
      let size = 0;
      try {
        size = Deno.statSync(this.path).size;
      } catch { /* missing */ }
      if (size < this.bytes) {
        f = Deno.openSync(this.path, { write: true, create: true, mode: 0o600 });
        f.seekSync(size, Deno.SeekMode.Start);
        const zeros = new Uint8Array(CHUNK);
        while (size < this.bytes) {
          size += f.writeSync(zeros.subarray(0, Math.min(CHUNK, this.bytes - size)));
        }
        f.syncDataSync();
      }
      this.held = true;
    } catch (e) {
      this.remove();
      if (!isDiskFull(e)) this.unavailable = e instanceof Error ? e.message : String(e);
    } finally {
      f?.close();
    }
    return this.held;
  }

  /** Gives the space back to the disk (the journal's next write uses it); true when it was held. */
  release(): boolean {
    if (!this.held) return false;
    this.remove();
    return true;
  }

  private remove(): void {
    this.held = false;
    try {
      Deno.removeSync(this.path);
    } catch { /* missing */ }
  }
}
