/**
 * The journal's bounds (issue 15): a per-process line rate, a most size and
 * a most age, each from `config/limits.json`. Real hosts, real SQLite, real
 * components writing real floods.
 */

import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, TestHost } from "./helpers/host.ts";
import { uuidFloor } from "../core/processes/uuid.ts";
import type { Entry } from "../core/journal/journal.ts";

const probe = await builtTestPlugin("probe");
const opts = { sanitizeOps: false, sanitizeResources: false };
const test = hostTests({ plugins: { probe } });

/** `config/limits.json` with these limits. */
const limits = (json: Record<string, number>) => ({ "config/limits.json": JSON.stringify(json) });

function count(h: TestHost, where: string, ...args: string[]): number {
  h.host.journal.flush();
  const db = new DatabaseSync(`${h.root}/state/core/journal.sqlite`, { readOnly: true });
  try {
    return Number(
      (db.prepare(`SELECT count(*) AS n FROM journal WHERE ${where}`)
        .get(...args) as { n: number }).n,
    );
  } finally {
    db.close();
  }
}

test(
  "a flood of stderr lines is cut at the rate, with one entry saying how many went",
  async (h) => {
    assert.deepEqual(await h.result("probe.spew", { n: 30_000 }), { lines: 30_000 });
    const start = h.host.journal.query({ grep: '"method":"spew"', limit: 1 })[0];
    await eventually(
      () => h.host.journal.query({ pid: start.pid, grep: '"event":"exit"' }).length,
      "the process to end",
    );
    const kept = count(h, "pid = ? AND stream = 'stderr'", start.pid);
    const events = h.host.journal.query({ pid: start.pid, grep: '"event":"dropped"' });
    // At most one entry a second of the flood (it lasts longer on a loaded machine).
    const end = h.host.journal.query({ pid: start.pid, grep: '"event":"exit"' })[0];
    const seconds = Math.ceil((end.time - start.time) / 1000);
    assert.ok(
      events.length >= 1 && events.length <= seconds + 1,
      `one entry a second: ${events.length} in ${seconds} s`,
    );
    const dropped = events.map((e) => JSON.parse(e.line) as { lines: number; why: string });
    const sum = dropped.reduce((n, d) => n + d.lines, 0);
    assert.equal(kept + sum, 30_000, "every line is kept or counted");
    assert.ok(kept >= 5_000 && kept < 10_000, `a burst of 10 s of the rate: kept ${kept}`);
    assert.match(dropped[0].why, /more than 500 lines a second \("log_lines_per_second"/);
    // Another process has its own budget.
    assert.deepEqual(await h.result("probe.spew", { n: 10 }), { lines: 10 });
    assert.equal(count(h, "line LIKE 'spew 9 %'"), 2);
  },
  limits({ log_lines_per_second: 500 }),
);

test("the journal stays within journal_mib: the oldest entries go first", async (h) => {
  // 6 MB of lines: about 24 MB of SQLite without a bound.
  for (let i = 0; i < 3; i++) await h.result("probe.spew", { n: 20_000, len: 90 });
  h.host.journal.flush();
  const size = (await Deno.stat(`${h.root}/state/core/journal.sqlite`)).size;
  assert.ok(size <= 1.5 * 2 ** 20, `journal.sqlite is ${size} bytes`);
  assert.equal(count(h, "line LIKE 'spew 19999 %'"), 1, "the newest line is there");
  assert.equal(count(h, "line LIKE 'spew 0 %'"), 0, "the oldest lines went");
  assert.ok(count(h, "stream = 'stderr'") < 20_000);
  assert.deepEqual(await h.result("probe.noop"), {});
}, limits({ journal_mib: 1, log_lines_per_second: 1_000_000 }));

Deno.test(
  { name: "entries older than journal_days are dropped when the host starts", ...opts },
  async () => {
    const h = await TestHost.start({ plugins: { probe } });
    const root = h.root;
    await h.host.shutdown(100);
    const path = `${root}/state/core/journal.sqlite`;
    const db = new DatabaseSync(path);
    const day = 86_400_000;
    const put = (e: Entry) =>
      db.prepare("INSERT INTO journal (id, time, pid, plugin, stream, line) VALUES (?,?,?,?,?,?)")
        .run(e.id, e.time, e.pid, e.plugin, e.stream, e.line);
    for (const [age, line] of [[40, "forty days ago"], [10, "ten days ago"]] as const) {
      const time = Date.now() - age * day;
      put({ id: uuidFloor(time), time, pid: "old", plugin: "probe", stream: "stderr", line });
    }
    db.close();
    await Deno.mkdir(`${root}/config`, { recursive: true });
    await Deno.writeTextFile(`${root}/config/limits.json`, '{"journal_days": 30}');
    const again = await TestHost.open(root);
    try {
      const lines = again.host.journal.query({ pid: "old" }).map((e) => e.line);
      assert.deepEqual(lines, ["ten days ago"]);
    } finally {
      await again.close();
    }
  },
);

test(
  "19 calls with 5 MB params leave a small journal: params and lines kept as a prefix with their length",
  async (h) => {
    const big = "x".repeat(5 * 2 ** 20);
    for (let i = 0; i < 19; i++) {
      const r = await h.call("probe.echo", { i, big });
      assert.equal(
        (r.result as { big: string })?.big.length,
        big.length,
        `the call is whole: ${JSON.stringify(r.error)}`,
      );
    }
    await h.result("probe.spew", { n: 1, len: 200_000 });
    h.host.journal.flush();
    const db = new DatabaseSync(`${h.root}/state/core/journal.sqlite`, { readOnly: true });
    let stats: { longest: number; total: number };
    try {
      stats = db.prepare(
        "SELECT max(length(line)) AS longest, sum(length(line)) AS total FROM journal",
      )
        .get() as typeof stats;
    } finally {
      db.close();
    }
    assert.ok(stats.longest <= 8 * 1024, `every entry within journal_entry_kib: ${stats.longest}`);
    assert.ok(stats.total < 19 * 8 * 1024 + 100_000, `the lines total ${stats.total} bytes`);
    const starts = h.host.journal.query({ grep: '"method":"echo"', limit: 100 })
      .map((e) => JSON.parse(e.line));
    assert.equal(starts.length, 19);
    for (const s of starts) {
      assert.equal(s.event, "start", "still a start event, with its fields");
      assert.equal(s.params.truncated, true);
      assert.ok(s.params.bytes > 5 * 2 ** 20, `the full length: ${s.params.bytes}`);
      assert.ok(s.params.prefix.startsWith('{"i":'), s.params.prefix.slice(0, 20));
    }
    const line = h.host.journal.query({ grep: "spew 0 ", limit: 1 })[0].line;
    assert.match(
      line,
      /^spew 0 s+… \[truncated: 200007 bytes in all\]$/,
      "the line and its length",
    );
    const file = (await Deno.stat(`${h.root}/state/core/journal.sqlite`)).size;
    const wal = await Deno.stat(`${h.root}/state/core/journal.sqlite-wal`).then(
      (s) => s.size,
      () => 0,
    );
    assert.ok(file + wal < 8 * 2 ** 20, `the journal's files: ${file + wal} bytes, not 100 MB`);
  },
  limits({ journal_entry_kib: 8 }),
);
