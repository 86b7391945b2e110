/**
 * A ring's reader in a worker, for `row_ring_test.ts`: takes the ring's
 * buffer, says "ready", drains it whenever it wakes, and posts every row on
 * "done".
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { RingReader } from "../row_ring.ts";
import type { Row } from "../journal_row.ts";

let reader: RingReader;
const rows: Row[] = [];
const drain = () => {
  rows.push(...reader.take());
  reader.sleep(drain);
};
self.onmessage = (e: MessageEvent<SharedArrayBuffer | "done">) => {
  if (e.data !== "done") {
    reader = new RingReader(e.data);
    drain();
    self.postMessage("ready");
  } else {
    rows.push(...reader.take());
    self.postMessage(rows);
  }
};
