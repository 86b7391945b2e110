/**
 * Where the journal's rows go: to a worker with its own SQLite connection
 * (a journal file: {@link WorkerSink}), or to a writer on this thread (an
 * in-memory journal, which another connection could not see:
 * {@link InlineSink}). The worker's calls that the core must wait for (a
 * read sees every entry appended before it; close loses nothing) block on
 * `Atomics.wait` for its answer: ~40 µs, and only on reads and close.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import type { JournalHealthView } from "./journal_health.ts";
import type { JournalRecovery } from "./journal_file.ts";
import {
  DISK_STATES,
  type DiskState,
  type JournalBounds,
  JournalWriter,
  type WriterEvents,
} from "./journal_writer.ts";
import type { Row } from "./journal_row.ts";
import { ringBuffer, RingWriter } from "./row_ring.ts";

/** The slots of the memory the worker answers through. */
export const SLOT = { done: 0, value: 1, generation: 2, disk: 3 } as const;

/** Core → writer worker. */
export type ToWriter =
  | {
    op: "open";
    path: string;
    bounds: JournalBounds;
    shared: SharedArrayBuffer;
    ring: SharedArrayBuffer;
  }
  | { op: "sync" | "prune" | "close"; seq: number }
  | { op: "repair"; seq: number; error: string };

/** Writer worker → core. */
export type FromWriter =
  | { op: "ready" }
  | { op: "report"; line: string }
  | { op: "health"; view: JournalHealthView }
  | { op: "recovered"; r: JournalRecovery };

/**
 * Rows wait in the ring at most this long before the worker drains them
 * (ms), and it writes them at once: entries reach the file within 5 ms.
 * Rows go through shared memory (`row_ring.ts`), not `postMessage` (which
 * was 5–12 % of the core's busy time).
 */
export const HAND_OFF_MS = 4;

/**
 * The most rows the worker writes in one transaction: the journal's bounds
 * are checked after each (pruning is due after 1/16 of `maxBytes`), so a
 * flood drained at once does not grow the file past them first.
 */
export const BATCH_ROWS = 1000;

/** The longest wait for the worker's answer before the journal gives up on it (ms). */
const ANSWER_MS = 30_000;

/** Where rows go, and the calls a journal makes of its writer. */
export interface JournalSink {
  /** Takes a row: written within a few milliseconds. */
  add(row: Row): void;
  /** Returns once every row added before is written (or, while writes fail, kept to retry). */
  sync(): void;
  /** Prunes now; returns how many entries went. */
  prune(): number;
  /** A reader found the file damaged: the writer replaces it. */
  repair(error: unknown): void;
  /** How many times the file was replaced: readers open it again when it changes. */
  readonly generation: number;
  /** Whether the disk takes what the host acknowledges now (read without waiting). */
  disk(): DiskState;
  /** Writes what is left (one last try) and closes. */
  close(): void;
}

/** The writer on this thread (an in-memory journal). */
export class InlineSink implements JournalSink {
  readonly writer: JournalWriter;

  constructor(db: DatabaseSync, path: string, bounds: JournalBounds, on: WriterEvents) {
    this.writer = new JournalWriter(db, path, bounds, on, 5);
  }
  add(row: Row): void {
    this.writer.add([row]);
  }
  sync(): void {
    this.writer.flush();
  }
  prune(): number {
    return this.writer.prune();
  }
  repair(error: unknown): void {
    this.writer.repair(error);
  }
  get generation(): number {
    return this.writer.generation;
  }
  disk(): DiskState {
    return this.writer.disk();
  }
  close(): void {
    this.writer.close();
  }
}

/**
 * The writer in a worker (`journal_worker.ts`). Until the worker has
 * started (tens of milliseconds), rows are written on this thread, through
 * the readers' connection, so they reach the file as soon as ever.
 */
export class WorkerSink implements JournalSink {
  private worker: Worker;
  /** The writer on this thread until the worker is ready. */
  private early: JournalWriter | null;
  private shared = new Int32Array(new SharedArrayBuffer(4 * 4));
  private seq = 0;
  private ring: RingWriter;
  /** Set while rows wait for room in the ring: it tries again. */
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(db: DatabaseSync, path: string, bounds: JournalBounds, on: WriterEvents) {
    this.early = new JournalWriter(db, path, bounds, on, 5);
    this.early.prune(); // before the host answers anything, as a host that starts promises
    this.worker = new Worker(new URL("./journal_worker.ts", import.meta.url), { type: "module" });
    this.worker.onmessage = (e: MessageEvent<FromWriter>) => {
      const m = e.data;
      if (m.op === "ready") this.ready();
      else if (m.op === "report") on.report(m.line);
      else if (m.op === "health") on.health(m.view);
      else on.recovered(m.r);
    };
    const ring = ringBuffer();
    this.ring = new RingWriter(ring);
    this.post({ op: "open", path, bounds, shared: this.shared.buffer as SharedArrayBuffer, ring });
  }

  /** The worker has opened the file: what this thread still holds is written, and rows go there. */
  private ready(): void {
    const early = this.early;
    if (!early) return;
    this.early = null;
    early.flush(true);
    // What could not be written here (a full disk) goes first to the worker, which retries it.
    for (const row of early.stop()) this.add(row);
  }

  private post(msg: ToWriter): void {
    this.worker.postMessage(msg);
  }

  add(row: Row): void {
    if (this.early) return this.early.add([row]);
    this.ring.put(row);
    if (this.ring.backlog) this.retryLater();
  }

  /** Rows wait for room in the ring (a flood faster than the worker): push them again soon. */
  private retryLater(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.ring.push();
      if (this.ring.backlog) this.retryLater();
    }, HAND_OFF_MS);
  }

  /** Makes a call and blocks until the worker answers it; returns its value. */
  private call(msg: { op: "sync" | "prune" | "close" } | { op: "repair"; error: string }): number {
    if (!this.ring.pushAll(ANSWER_MS)) throw new Error("the journal's writer did not answer");
    const seq = ++this.seq;
    this.post({ ...msg, seq });
    const deadline = Date.now() + ANSWER_MS;
    for (let done = Atomics.load(this.shared, SLOT.done); done < seq;) {
      if (Date.now() > deadline) throw new Error("the journal's writer did not answer");
      Atomics.wait(this.shared, SLOT.done, done, 1000);
      done = Atomics.load(this.shared, SLOT.done);
    }
    return Atomics.load(this.shared, SLOT.value);
  }

  sync(): void {
    if (this.early) this.early.flush();
    else this.call({ op: "sync" });
  }
  prune(): number {
    return this.early ? this.early.prune() : this.call({ op: "prune" });
  }
  repair(error: unknown): void {
    if (this.early) return this.early.repair(error);
    this.call({ op: "repair", error: error instanceof Error ? error.message : String(error) });
  }
  get generation(): number {
    return this.early ? 0 : Atomics.load(this.shared, SLOT.generation);
  }
  disk(): DiskState {
    if (this.early) return this.early.disk();
    return DISK_STATES[Atomics.load(this.shared, SLOT.disk)] ?? "ok";
  }
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      if (this.early) {
        this.early.flush(true);
        this.early.stop(); // a full disk at close: lost, as it would be on this thread
      } else this.call({ op: "close" });
    } finally {
      this.worker.terminate();
    }
  }
}
