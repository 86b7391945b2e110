import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { type Entry, Journal, readJournal } from "./journal.ts";
import { pairExits } from "./exit_pairs.ts";
import type { Row } from "./journal_row.ts";

const start = (pid: string) => JSON.stringify({ event: "start", method: `${pid}.noop` });
// The exit line does not name its process (the row does): `_pid` keeps the calls readable.
const exit = (_pid: string) => JSON.stringify({ event: "exit", status: 0 });
const view = (es: Entry[]) => es.map((e) => [e.id, e.time, e.pid, e.stream, e.line]);

/** Two short processes whose lives overlap, lines of theirs and of the core in between. */
function overlapping(j: Journal): Entry[] {
  return [
    j.append("a", "x", "core", start("a")),
    j.append("b", "x", "core", start("b")),
    j.append("a", "x", "stdout", "a's line"),
    j.coreEvent("exit", { note: "the core's own, never paired" }),
    j.append("a", "x", "core", exit("a")),
    j.append("c", "x", "core", exit("c")), // its start was written before
    j.append("b", "x", "core", exit("b")),
  ];
}

Deno.test("a start and an exit written together take one row; every query shows the entries as appended", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/journal.sqlite`;
  try {
    for (const file of [":memory:", path]) {
      const j = new Journal(file);
      let open = true;
      try {
        const all = overlapping(j);
        assert.deepEqual(view(j.query({})), view(all));
        for (let limit = 1; limit <= all.length; limit++) {
          assert.deepEqual(view(j.query({ limit })), view(all.slice(-limit)), `limit ${limit}`);
        }
        for (let i = 0; i < all.length; i++) {
          assert.deepEqual(view(j.query({ since: all[i].id })), view(all.slice(i)), `since ${i}`);
          assert.deepEqual(
            view(j.query({ until: all[i].id })),
            view(all.slice(0, i)),
            `until ${i}`,
          );
          assert.deepEqual(
            view(j.query({ since: all[1].id, until: all[i].id, limit: 2 })),
            view(all.slice(1, Math.max(1, i)).slice(-2)),
            `since 1, until ${i}, limit 2`,
          );
        }
        assert.deepEqual(view(j.query({ pid: "a" })), view(all.filter((e) => e.pid === "a")));
        assert.deepEqual(
          view(j.query({ grep: '"exit"' })),
          view(all.filter((e) => e.line.includes('"exit"'))),
        );
        assert.deepEqual(view(j.query({ grep: '"exit"', limit: 2 })), view([all[5], all[6]]));
        assert.deepEqual(j.query({ level: "trace" }), [], "exits are plain lines");
        assert.deepEqual(j.query({ fields: { status: 0 } }), []);
        if (file === path) {
          j.close();
          open = false;
          assert.deepEqual(view(readJournal(path, {})), view(all), "a reader of the file");
          const db = new DatabaseSync(path, { readOnly: true });
          const rows = db.prepare("SELECT pid, end_id FROM journal ORDER BY id").all();
          db.close();
          assert.deepEqual(rows.map((r) => [r.pid, r.end_id !== null]), [
            ["a", true],
            ["b", true],
            ["a", false],
            ["core", false],
            ["c", false],
          ]);
        }
      } finally {
        if (open) j.close();
      }
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an exit is written in its start's row only within PAIR_MS, and a batch is left as it was", () => {
  const row = (
    id: string,
    time: number,
    pid: string,
    line: string,
  ): Row => [id, time, pid, "x", "core", line, null, null, null];
  const batch = [row("1", 0, "a", start("a")), row("2", 1001, "a", exit("a"))];
  assert.equal(pairExits(batch).length, 2, "more than PAIR_MS apart");
  const near = [row("1", 0, "a", start("a")), row("2", 3, "a", exit("a"))];
  assert.deepEqual(pairExits(near), [[...near[0], "2", 3, exit("a")]]);
  assert.equal(near.length, 2);
  assert.equal(near[0].length, 9);
});

Deno.test("a journal made before paired rows gets their columns; readers of it still work", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/journal.sqlite`;
  try {
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE journal (id TEXT PRIMARY KEY, time INTEGER NOT NULL, pid TEXT NOT NULL,
      plugin TEXT NOT NULL, stream TEXT NOT NULL, line TEXT NOT NULL, level TEXT, fields TEXT,
      span TEXT) WITHOUT ROWID`);
    const now = Date.now();
    const insert = old.prepare("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL)");
    insert.run("01000000-0000-7000-8000-000000000001", now, "a", "x", "core", start("a"));
    insert.run("01000000-0000-7000-8000-000000000002", now, "a", "x", "core", exit("a"));
    old.close();
    assert.deepEqual(readJournal(path, {}).map((e) => e.line), [start("a"), exit("a")]);
    const j = new Journal(path);
    const added = [j.append("b", "x", "core", start("b")), j.append("b", "x", "core", exit("b"))];
    j.close();
    assert.deepEqual(readJournal(path, {}).map((e) => e.line), [
      start("a"),
      exit("a"),
      ...added.map((e) => e.line),
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
