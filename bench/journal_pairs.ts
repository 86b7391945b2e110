/**
 * The journal writer's CPU per no-op call with and without one row for a
 * start and its exit (`core/journal/exit_pairs.ts`): the real writer on a
 * journal file, fed as the worker is (a hand-off of `calls` calls, each a
 * `start` and an `exit` of one pid, written at once). "two rows" writes the
 * same rows with an exit the pairing does not recognise (`"exiT"`, same
 * length), as before the pairing. Rounds alternate; CPU of this thread.
 *
 *   deno run --allow-all bench/journal_pairs.ts [calls per hand-off] [calls] [rounds]
 *
 * @module
 */

import { threadCpuMs } from "./cpu_time.ts";
import { openDatabase } from "../core/journal/journal_file.ts";
import { JournalWriter } from "../core/journal/journal_writer.ts";
import type { Row } from "../core/journal/journal_row.ts";
import { uuidv7 } from "../core/processes/uuid.ts";

const START = '{"event":"start","method":"noop","params":{},"parent":"x","detached":false,' +
  '"engine":"p1"}';
const perHandOff = Number(Deno.args[0] ?? 4);
const total = Number(Deno.args[1] ?? 20_000);
const rounds = Number(Deno.args[2] ?? 3);

/** CPU µs per call writing `total` calls, the exit line as given. */
function run(exit: string): number {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/journal.sqlite`;
  const writer = new JournalWriter(
    openDatabase(path),
    path,
    {
      maxBytes: Infinity,
      maxAgeMs: Infinity,
    },
    { report: () => {}, health: () => {}, recovered: () => {} },
    0,
  );
  const cpu0 = threadCpuMs();
  for (let b = 0; b < total / perHandOff; b++) {
    const rows: Row[] = [];
    for (let i = 0; i < perHandOff; i++) {
      const now = Date.now();
      const pid = `probe-${uuidv7(now)}`;
      rows.push([uuidv7(now), now, pid, "probe", "core", START, null, null, null]);
      rows.push([uuidv7(now), now, pid, "probe", "core", exit, null, null, null]);
    }
    writer.add(rows);
    writer.flush();
  }
  const us = (threadCpuMs() - cpu0) * 1000 / total;
  writer.close();
  Deno.removeSync(dir, { recursive: true });
  return us;
}

for (let r = 0; r < rounds; r++) {
  const paired = run('{"event":"exit","status":0}');
  const two = run('{"event":"exiT","status":0}');
  console.log(
    `round ${r + 1}, ${perHandOff} calls a hand-off: one row ${paired.toFixed(1)} µs of CPU ` +
      `per call, two rows ${two.toFixed(1)} (load ${Deno.loadavg()[0].toFixed(2)})`,
  );
}
