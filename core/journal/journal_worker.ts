/**
 * The journal's writer in a worker (`journal_sink.ts` starts it): its own
 * SQLite connection, so a batch never blocks the core's event loop. It
 * drains the rows from shared memory (`row_ring.ts`) every
 * {@link HAND_OFF_MS} while they come and sleeps when none do, and receives
 * calls that the core waits for (`sync`, `prune`,
 * `repair`, `close`), which it answers through shared memory: the core
 * blocks on `Atomics.wait` until the call's number appears in slot 0. It
 * holds the journal's reserve (`journal_reserve.ts`) and keeps the disk's
 * state in shared memory, where the core reads it before each start.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { DISK_STATES, type JournalBounds, JournalWriter } from "./journal_writer.ts";
import type { Row } from "./journal_row.ts";
import { openDatabase } from "./journal_file.ts";
import { JournalReserve } from "./journal_reserve.ts";
import { BATCH_ROWS, HAND_OFF_MS, SLOT, type ToWriter } from "./journal_sink.ts";
import { RingReader } from "./row_ring.ts";

let writer: JournalWriter | null = null;
let shared: Int32Array;
let ring: RingReader;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Writes rows at once, {@link BATCH_ROWS} a transaction. */
function write(rows: Row[]): void {
  for (let i = 0; writer && i < rows.length; i += BATCH_ROWS) {
    writer.add(rows.length > BATCH_ROWS ? rows.slice(i, i + BATCH_ROWS) : rows);
    writer.flush();
  }
}

/** A row came: drain within {@link HAND_OFF_MS}. */
function wake(): void {
  timer ??= setTimeout(drainDue, HAND_OFF_MS);
}

/**
 * Drains the ring; while rows keep coming the next drain is due
 * {@link HAND_OFF_MS} after this one began (not after its write), so no row
 * waits longer than that before its write starts; with none, sleeps.
 */
function drainDue(): void {
  timer = undefined;
  const rows = ring.take();
  if (rows.length === 0) {
    if (writer) ring.sleep(wake);
    return;
  }
  wake();
  try {
    write(rows);
  } catch (err) {
    self.postMessage({ op: "report", line: `sausage: the journal's writer failed: ${err}` });
  }
}

/** Answers a call the core waits for. */
function answer(seq: number, value = 0): void {
  Atomics.store(shared, SLOT.value, value);
  Atomics.store(shared, SLOT.generation, writer?.generation ?? 0);
  Atomics.store(shared, SLOT.done, seq);
  Atomics.notify(shared, SLOT.done);
}

function open(path: string, bounds: JournalBounds): void {
  writer = new JournalWriter(openDatabase(path), path, bounds, {
    report: (line) => self.postMessage({ op: "report", line }),
    health: (view) => self.postMessage({ op: "health", view }),
    recovered: (r) => self.postMessage({ op: "recovered", r }),
    // Read by the core at each start of a process, without waiting for a message.
    disk: (state) => Atomics.store(shared, SLOT.disk, DISK_STATES.indexOf(state)),
  }, 0);
  self.postMessage({ op: "ready" });
  // Made here, off the core's thread (written once per world); a full disk tries again later.
  writer.useReserve(new JournalReserve(path, bounds.reserveBytes ?? 0));
}

self.onmessage = (e: MessageEvent<ToWriter>) => {
  const msg = e.data;
  try {
    switch (msg.op) {
      case "open":
        shared = new Int32Array(msg.shared);
        ring = new RingReader(msg.ring);
        open(msg.path, msg.bounds);
        return ring.sleep(wake);
    }
    write(ring.take()); // every row put before the call
    switch (msg.op) {
      case "sync":
        writer!.flush();
        return answer(msg.seq);
      case "prune":
        return answer(msg.seq, writer!.prune());
      case "repair":
        writer!.repair(new Error(msg.error));
        return answer(msg.seq);
      case "close":
        writer?.close();
        writer = null;
        if (timer !== undefined) clearTimeout(timer);
        return answer(msg.seq);
    }
  } catch (err) {
    self.postMessage({ op: "report", line: `sausage: the journal's writer failed: ${err}` });
    if ("seq" in msg) answer(msg.seq, -1);
  }
};
