/**
 * The journal's writes: rows in one transaction per batch, bounded by size
 * and age (pruned as they grow), a full or failing disk counted and retried
 * after a growing pause (`journal_health.ts`), a file found damaged moved
 * aside and replaced. A host runs it in a worker with its own SQLite
 * connection (`journal_worker.ts`), so a batch never blocks the core's
 * event loop; an in-memory journal (tests) runs it inline.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { uuidFloor, uuidv7 } from "../processes/uuid.ts";
import { JournalHealth, type JournalHealthView } from "./journal_health.ts";
import { isDamaged, type JournalRecovery, openDatabase, recover } from "./journal_file.ts";
import { isDiskFull, type JournalReserve } from "./journal_reserve.ts";
import { pairExits } from "./exit_pairs.ts";
import type { Row } from "./journal_row.ts";

/** How much a journal may hold. */
export interface JournalBounds {
  /** The most bytes of database pages in use (the file stays near this size). */
  maxBytes: number;
  /** Entries older than this (ms) are dropped. */
  maxAgeMs: number;
  /**
   * The most bytes of one entry's line (`journal_entry_kib`): a longer one is
   * kept as a prefix with its full length (`journal_entry.ts`). Default 64 KiB.
   */
  maxEntryBytes?: number;
  /**
   * The space set aside beside the journal for a full disk
   * (`journal_reserve_mib`, `journal_reserve.ts`), in bytes. Default 0: none.
   */
  reserveBytes?: number;
}

/**
 * Whether the journal's disk can take what the host acknowledges (the host
 * refuses new calls unless `ok`): `ok`, the reserve set aside (or none
 * configured) and writes working; `reserve-in-use`, the disk filled and
 * the reserve was given to the journal; `no-reserve`, the reserve could not
 * be made (the disk is full); `failing`, writes fail for a full disk (the
 * entries wait in memory).
 */
export type DiskState = "ok" | "reserve-in-use" | "no-reserve" | "failing";

/** The states in the order of their numbers (shared memory carries the number). */
export const DISK_STATES: readonly DiskState[] = ["ok", "reserve-in-use", "no-reserve", "failing"];

/** The first and longest pause between two tries to make the reserve again (ms). */
const REMAKE_MS = [1000, 10_000] as const;

/** What the writer tells its owner (the `Journal`, maybe across a worker). */
export interface WriterEvents {
  /** A line for the terminal (a streak of failures began or ended, a file replaced). */
  report(line: string): void;
  /** The health changed (after each failed or working write). */
  health(view: JournalHealthView): void;
  /** The file was found damaged while writing and replaced. */
  recovered(r: JournalRecovery): void;
  /** The disk's state changed (`DiskState`). */
  disk?(state: DiskState): void;
}

/** SQLite needs about four bytes of file per byte of line (keys, two indexes): measured 3.9x. */
const BYTES_PER_LINE_BYTE = 4;

/** After pruning, the journal holds at most this share of `maxBytes`, so pruning is not constant. */
const PRUNE_TO = 0.9;

/** Rows kept before a batch is written at once (not waiting for the timer). */
const BATCH_ROWS = 1000;

/** Writes the journal's rows. */
export class JournalWriter {
  private insert!: StatementSync;
  /** The insert of a row with its process's exit (`exit_pairs.ts`). */
  private insertPair!: StatementSync;
  private pending: Row[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Estimated bytes written since the bounds were last checked. */
  private sinceCheck = 0;
  private lastAgeCheck = 0;
  /** How writes go: a full disk pauses them, counted, instead of a loop of retries. */
  readonly health: JournalHealth;
  /** The file was moved aside but no new one could be made: made at the next try. */
  private reopen = false;
  /** How many times the file was replaced (readers open it again). */
  generation = 0;
  /** The space set aside for a full disk (`journal_reserve.ts`); none in memory and before the worker. */
  private reserve: JournalReserve | null = null;
  /** Whether the reserve was given to the journal (and not made again since). */
  private reserveUsed = false;
  private remakePause: number = REMAKE_MS[0];
  private remakeTimer: ReturnType<typeof setTimeout> | undefined;
  private lastDisk: DiskState = "ok";

  /**
   * @param db the open journal (`journal_file.ts`)
   * @param delayMs how long rows wait to be written with others
   */
  constructor(
    private db: DatabaseSync,
    private path: string,
    private bounds: JournalBounds,
    private on: WriterEvents,
    private delayMs: number,
  ) {
    this.health = new JournalHealth((l) => on.report(l));
    this.use(db);
  }

  /**
   * Sets the reserve aside (made now when missing: tried again later on a
   * full disk) and gives it to the journal when the disk fills.
   */
  useReserve(reserve: JournalReserve): void {
    this.reserve = reserve;
    if (!reserve.make()) this.remakeLater();
    if (reserve.unavailable !== null) {
      this.on.report(
        `sausage: the journal's reserve ${reserve.path} cannot be made (${reserve.unavailable}); ` +
          "the journal runs without one",
      );
    }
    this.tellDisk();
  }

  /**
   * The disk's state now. Writes that fail for another reason than a full
   * disk (a lock held past the busy timeout) are retried and refuse nothing.
   */
  disk(): DiskState {
    const health = this.health.view();
    if (health.failing_since !== null && isDiskFull(health.last_error)) return "failing";
    if (!this.reserve || this.reserve.isHeld) return "ok";
    return this.reserveUsed ? "reserve-in-use" : "no-reserve";
  }

  /** What `/proc/core/journal.json` shows: the health of writes, and the disk's state. */
  view(): JournalHealthView {
    return {
      ...this.health.view(),
      disk: this.disk(),
      reserve_bytes: this.reserve?.bytes ?? 0,
    };
  }

  /** Tells the owner the disk's state, when it changed. */
  private tellDisk(): void {
    const now = this.disk();
    if (now === this.lastDisk) return;
    this.lastDisk = now;
    this.on.disk?.(now);
    this.on.health(this.view());
  }

  /** Tries to make the reserve again after a pause (1 s doubling to 10 s). */
  private remakeLater(): void {
    if (this.remakeTimer !== undefined) return;
    this.remakeTimer = setTimeout(() => {
      this.remakeTimer = undefined;
      const reserve = this.reserve;
      if (!reserve || reserve.isHeld) return;
      if (reserve.make()) {
        this.remakePause = REMAKE_MS[0];
        if (this.reserveUsed) {
          this.reserveUsed = false;
          this.add([this.event("journal-reserve-restored", { reserve_bytes: reserve.bytes })]);
        }
        this.tellDisk();
      } else {
        this.remakePause = Math.min(REMAKE_MS[1], this.remakePause * 2);
        this.remakeLater();
      }
    }, this.remakePause);
  }

  /**
   * The disk is full: gives the reserve to the journal (true when there was
   * one to give), says so in the journal, and tries to make it again later.
   */
  private useTheReserve(error: unknown): boolean {
    if (!this.reserve?.release()) return false;
    this.reserveUsed = true;
    const disk = this.reserve.path.slice(0, this.reserve.path.lastIndexOf("/"));
    this.pending.unshift(this.event("journal-reserve-used", {
      reserve_bytes: this.reserve.bytes,
      disk,
      error: error instanceof Error ? error.message : String(error),
    }));
    this.on.report(
      `sausage: the disk of ${disk} is full: the journal writes into its reserve ` +
        `(${Math.round(this.reserve.bytes / 2 ** 20)} MiB, "journal_reserve_mib" in ` +
        `config/limits.json) and new calls are refused until there is room again`,
    );
    this.remakePause = REMAKE_MS[0];
    this.remakeLater();
    this.tellDisk();
    return true;
  }

  /** The open database (an in-memory journal's readers share it). */
  get database(): DatabaseSync {
    return this.db;
  }

  /** Takes rows to write within `delayMs` (at once when many wait and writes work). */
  add(rows: Row[]): void {
    for (const r of rows) this.pending.push(r);
    if (this.pending.length >= BATCH_ROWS && this.health.due()) this.flush();
    else if (this.pending.length > BATCH_ROWS) this.pending = this.health.bound(this.pending);
    this.timer ??= setTimeout(() => this.flush(), Math.max(this.delayMs, this.health.wait()));
  }

  /**
   * Drops entries older than `maxAgeMs`, then the oldest entries while the
   * pages in use pass `maxBytes` (down to 90 % of it). Returns how many went.
   */
  prune(): number {
    let dropped = 0;
    const now = Date.now();
    this.lastAgeCheck = now;
    this.sinceCheck = 0;
    if (Number.isFinite(this.bounds.maxAgeMs)) {
      const r = this.db.prepare("DELETE FROM journal WHERE id < ?")
        .run(uuidFloor(now - this.bounds.maxAgeMs));
      dropped += Number(r.changes);
    }
    if (!Number.isFinite(this.bounds.maxBytes)) return dropped;
    const target = this.bounds.maxBytes * PRUNE_TO;
    for (let used = this.usedBytes(); used > this.bounds.maxBytes;) {
      const rows = Number(
        (this.db.prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n,
      );
      if (rows === 0) break;
      const n = Math.max(1, Math.ceil(rows * (used - target) / used));
      const r = this.db.prepare(
        "DELETE FROM journal WHERE id IN (SELECT id FROM journal ORDER BY id LIMIT ?)",
      ).run(n);
      dropped += Number(r.changes);
      const after = this.usedBytes();
      if (after >= used) break; // nothing more to gain
      used = after;
      if (used <= target) break;
    }
    return dropped;
  }

  /** Prunes after about 1/16 of `maxBytes` was written, or an hour after the last time. */
  private pruneWhenDue(): void {
    const due = this.sinceCheck > this.bounds.maxBytes / 16 ||
      Date.now() - this.lastAgeCheck > 3_600_000;
    if (!due) return;
    try {
      this.prune();
    } catch (e) {
      this.on.report(`sausage: journal pruning failed: ${e instanceof Error ? e.message : e}`);
    }
  }

  /** Bytes of database pages that hold data (free pages are reused before the file grows). */
  private usedBytes(): number {
    const pragma = (name: string) =>
      Number(Object.values(this.db.prepare(`PRAGMA ${name}`).get() as object)[0]);
    return (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
  }

  private use(db: DatabaseSync): void {
    this.db = db;
    this.insert = db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line, level, fields, span) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertPair = db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line, level, fields, span, " +
        "end_id, end_time, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
  }

  /** A core event of the writer itself. */
  private event(event: string, fields: Record<string, unknown>): Row {
    const now = Date.now();
    const line = JSON.stringify({ event, ...fields });
    return [uuidv7(now), now, "core", "core", "core", line, null, null, null];
  }

  /** Moves the damaged file aside, starts a new one and records why. */
  private replace(error: unknown): void {
    const recovered = recover(this.path, error, (l) => this.on.report(l));
    this.use(openDatabase(this.path));
    this.generation++;
    this.on.recovered(recovered);
    this.pending.unshift(this.event("journal-recovered", { ...recovered }));
  }

  /** A damaged file found by a reader: replaced here, where the writes are. */
  repair(error: unknown): void {
    try {
      this.db.close();
    } catch { /* already unusable */ }
    this.replace(error);
    this.flush();
  }

  /**
   * Writes every pending row in one transaction. When the file turns out to
   * be damaged, it is replaced and the rows go to the new one; other errors
   * (a full disk) are counted (`health`) and the rows kept for the next
   * try, which waits a growing pause.
   */
  flush(force = false): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    if (!force && !this.health.due()) {
      this.timer = setTimeout(() => this.flush(), this.health.wait());
      return;
    }
    const batch = this.pending;
    this.pending = [];
    let reserveTried = false;
    for (let attempt = 0;; attempt++) {
      try {
        if (this.reopen) {
          this.use(openDatabase(this.path));
          this.reopen = false;
          this.generation++;
        }
        this.write(batch);
        const streak = this.health.succeeded();
        if (streak) {
          this.on.health(this.view());
          this.add([this.event("journal-writes-resumed", { ...streak })]);
        }
        this.tellDisk();
        this.pruneWhenDue();
        return;
      } catch (first) {
        let e = first;
        // A full disk: the reserve's space goes to the journal and the batch is tried again now.
        if (!reserveTried && isDiskFull(e)) {
          reserveTried = true;
          this.pending.push(...batch.splice(0)); // after the reserve's event
          if (this.useTheReserve(e)) {
            batch.push(...this.pending.splice(0));
            continue;
          }
          batch.push(...this.pending.splice(0));
        }
        if (attempt === 0 && this.path !== ":memory:" && isDamaged(e)) {
          try {
            this.db.close();
          } catch { /* already unusable */ }
          try {
            this.replace(e);
          } catch (again) {
            // No room for a new file either: opened again at the next try.
            this.reopen = true;
            e = again;
          }
          if (!this.reopen) {
            batch.unshift(...this.pending.splice(0));
            continue;
          }
        }
        this.pending = this.health.bound([...batch, ...this.pending]);
        this.health.failed(e);
        this.on.health(this.view());
        this.tellDisk();
        this.timer = setTimeout(() => this.flush(), this.health.wait());
        return;
      }
    }
  }

  private write(batch: Row[]): void {
    this.db.exec("BEGIN");
    try {
      for (const r of pairExits(batch)) {
        if (r.length === 9) this.insert.run(...r);
        else this.insertPair.run(...r);
        this.sinceCheck += (r[5].length + (r[7]?.length ?? 0) + r[2].length + 80 +
          (r.length === 9 ? 0 : r[11].length + 40)) * BYTES_PER_LINE_BYTE;
      }
      this.db.exec("COMMIT");
    } catch (e) {
      try {
        this.db.exec("ROLLBACK");
      } catch { /* no transaction left */ }
      throw e;
    }
  }

  /** Stops its timers and hands back the rows not written yet (another writer takes over). */
  stop(): Row[] {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.remakeTimer !== undefined) clearTimeout(this.remakeTimer);
    this.remakeTimer = undefined;
    const left = this.pending;
    this.pending = [];
    return left;
  }

  /** Flushes (one last try, even while writes fail) and closes the file. */
  close(): void {
    this.flush(true);
    this.stop();
    this.db.close();
  }
}
