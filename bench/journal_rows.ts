/**
 * The journal writer's floor: CPU per row of SQLite inserts into a journal
 * file (its schema, WAL, `synchronous = NORMAL`), at a few rows per
 * transaction, with the rows a no-op call writes (its `start` and `exit`).
 * What the journal's worker spends per call beyond twice this is its
 * hand-offs: waking, receiving the message, its event loop.
 *
 *   deno run --allow-all bench/journal_rows.ts [rows]
 *
 * @module
 */

import { threadCpuMs } from "./cpu_time.ts";
import { openDatabase } from "../core/journal/journal_file.ts";
import { uuidv7 } from "../core/processes/uuid.ts";

const START = '{"event":"start","method":"noop","params":{},"parent":"x","detached":false,' +
  '"engine":"p1"}';
const EXIT = '{"event":"exit","status":0}';
const total = Number(Deno.args[0] ?? 40_000);

for (const perCommit of [2, 20, 200]) {
  const dir = Deno.makeTempDirSync();
  const db = openDatabase(`${dir}/journal.sqlite`);
  const insert = db.prepare(
    "INSERT INTO journal (id, time, pid, plugin, stream, line, level, fields, span) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const cpu0 = threadCpuMs();
  for (let b = 0; b < total / perCommit; b++) {
    db.exec("BEGIN");
    for (let i = 0; i < perCommit; i++) {
      const now = Date.now();
      const line = i % 2 ? EXIT : START;
      insert.run(uuidv7(now), now, `probe-${uuidv7(now)}`, "probe", "core", line, null, null, null);
    }
    db.exec("COMMIT");
  }
  const us = (threadCpuMs() - cpu0) * 1000 / total;
  console.log(
    `${perCommit} rows per transaction: ${us.toFixed(1)} µs of CPU per row ` +
      `(load ${Deno.loadavg()[0].toFixed(2)})`,
  );
  db.close();
  Deno.removeSync(dir, { recursive: true });
}
