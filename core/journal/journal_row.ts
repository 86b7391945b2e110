/**
 * A journal entry as the writer takes it: the columns of one row, in order.
 * Below the writer (`journal_writer.ts`), the pairing of exits with their
 * starts (`exit_pairs.ts`) and the ring that carries rows to the writer's
 * worker (`row_ring.ts`).
 *
 * @module
 */

/** One entry as written: id, time, pid, plugin, stream, line, level, fields (JSON), span. */
export type Row = [
  id: string,
  time: number,
  pid: string,
  plugin: string,
  stream: string,
  line: string,
  level: string | null,
  fields: string | null,
  span: string | null,
];
