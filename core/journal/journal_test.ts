import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { Journal, readJournal } from "./journal.ts";
import { uuidFloor } from "../processes/uuid.ts";

Deno.test("a query sees every entry appended before it, oldest first, filtered and limited", () => {
  const j = new Journal(":memory:");
  try {
    j.append("p1", "notes", "stdout", "one");
    j.append("p2", "www", "stderr", "two");
    j.append("p1", "notes", "stderr", "three");
    assert.deepEqual(j.query({}).map((e) => e.line), ["one", "two", "three"]);
    assert.deepEqual(j.query({ plugin: "notes" }).map((e) => e.line), ["one", "three"]);
    assert.deepEqual(j.query({ pid: "p2" }).map((e) => e.stream), ["stderr"]);
    assert.deepEqual(j.query({ grep: "t" }).map((e) => e.line), ["two", "three"]);
    assert.deepEqual(j.query({ limit: 1 }).map((e) => e.line), ["three"], "the newest");
    const ids = j.query({}).map((e) => e.id);
    assert.deepEqual([...ids].sort(), ids, "ids sort by time");
    assert.deepEqual(j.query({ since: ids[1] }).map((e) => e.line), ["two", "three"]);
    assert.deepEqual(j.query({ until: ids[1] }).map((e) => e.line), ["one"]);
    assert.throws(() => j.query({ since: "yesterday-ish" }), /not a time or entry id/);
  } finally {
    j.close();
  }
});

Deno.test("coreEvent journals the core's own events as JSON lines of pid, plugin and stream core", () => {
  const j = new Journal(":memory:");
  try {
    j.coreEvent("boot", { method: "www.start" });
    j.coreEvent("shutdown");
    const entries = j.query({ pid: "core" });
    assert.deepEqual(entries.map((e) => [e.plugin, e.stream, JSON.parse(e.line)]), [
      ["core", "core", { event: "boot", method: "www.start" }],
      ["core", "core", { event: "shutdown" }],
    ]);
  } finally {
    j.close();
  }
});

Deno.test("entries reach the file within milliseconds, and readers of the file see them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sausage-journal-" });
  const path = `${dir}/journal.sqlite`;
  const j = new Journal(path);
  try {
    j.append("p1", "notes", "stdout", "soon on disk");
    assert.deepEqual(readJournal(path, {}), [], "not before the batch is written");
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(readJournal(path, {}).map((e) => e.line), ["soon on disk"]);
  } finally {
    j.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a journal bounded by age drops older entries when it opens and prunes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sausage-journal-" });
  const path = `${dir}/journal.sqlite`;
  try {
    new Journal(path).close(); // makes the table
    const db = new DatabaseSync(path);
    const old = Date.now() - 120_000;
    db.prepare(
      "INSERT INTO journal (id, time, pid, plugin, stream, line) VALUES (?, ?, 'p1', 'notes', 'stdout', 'old')",
    )
      .run(uuidFloor(old), old);
    db.close();
    const j = new Journal(path, () => {}, { maxBytes: Infinity, maxAgeMs: 60_000 });
    try {
      j.append("p1", "notes", "stdout", "new");
      assert.deepEqual(j.query({}).map((e) => e.line), ["new"]);
      assert.equal(j.prune(), 0);
    } finally {
      j.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readJournal of a file that does not exist is empty", () => {
  assert.deepEqual(readJournal("/nonexistent/journal.sqlite", {}), []);
});

Deno.test("structured events keep level, fields and span; level and fields filter them", () => {
  const j = new Journal(":memory:");
  try {
    j.append("p1", "notes", "stderr", "a plain line");
    j.append("p1", "notes", "stderr", "", { level: "debug", message: "d", fields: { user: 7 } });
    j.append("p1", "notes", "stderr", "", {
      level: "warn",
      message: "slow",
      fields: { user: 7, table: "notes", ok: true },
      span: "request:db",
    });
    j.append("p1", "notes", "stderr", "", { level: "error", message: "e", fields: { user: "7" } });
    const warn = j.query({ level: "warn" });
    assert.deepEqual(warn.map((e) => e.line), ["slow", "e"]);
    const { id: _, time: __, ...slow } = warn[0];
    assert.deepEqual(slow, {
      pid: "p1",
      plugin: "notes",
      stream: "stderr",
      line: "slow",
      level: "warn",
      fields: { user: 7, table: "notes", ok: true },
      span: "request:db",
    });
    assert.deepEqual(j.query({ fields: { user: 7 } }).map((e) => e.line), ["d", "slow"]);
    assert.deepEqual(j.query({ fields: { user: "7" } }).map((e) => e.line), ["e"]);
    assert.deepEqual(j.query({ fields: { ok: true, table: "notes" } }).map((e) => e.line), [
      "slow",
    ]);
    assert.deepEqual(j.query({ level: "trace" }).length, 3, "plain lines have no level");
    assert.equal(j.query({}).length, 4);
    assert.equal(j.query({ grep: "plain" })[0].level, undefined);
    assert.throws(() => j.query({ level: "loud" as "warn" }), /not a level/);
  } finally {
    j.close();
  }
});

Deno.test("a journal made before structured events gets their columns; readers of it still work", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/journal.sqlite`;
  try {
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE journal (id TEXT PRIMARY KEY, time INTEGER NOT NULL, pid TEXT NOT NULL,
      plugin TEXT NOT NULL, stream TEXT NOT NULL, line TEXT NOT NULL) WITHOUT ROWID`);
    old.prepare("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)")
      .run(uuidFloor(Date.now()), Date.now(), "p", "x", "stderr", "old line");
    old.close();
    assert.deepEqual(readJournal(path, {}).map((e) => e.line), ["old line"]);
    assert.deepEqual(readJournal(path, { level: "info" }), []);
    const j = new Journal(path);
    j.append("p", "x", "stderr", "", { level: "info", message: "new" });
    j.close();
    assert.deepEqual(readJournal(path, { level: "info" }).map((e) => e.line), ["new"]);
    assert.equal(readJournal(path, {}).length, 2);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a read sees every entry appended before it, while the worker writes; close loses none", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "sausage-journal-" });
  const path = `${dir}/journal.sqlite`;
  try {
    const j = new Journal(path);
    // Before the worker is up (written on this thread), then after.
    j.append("p1", "notes", "stdout", "early");
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 3000; i++) j.append("p1", "notes", "stdout", `line ${i}`);
    const seen = j.query({ pid: "p1", limit: 10_000 });
    assert.equal(seen.length, 3001);
    assert.equal(seen[0].line, "early");
    assert.equal(seen.at(-1)!.line, "line 2999");
    for (let i = 0; i < 500; i++) j.append("p2", "notes", "stderr", `last ${i}`);
    j.close();
    assert.equal(readJournal(path, { pid: "p2", limit: 1000 }).length, 500);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
