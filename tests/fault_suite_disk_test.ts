/**
 * The fault suite's full-disk case (issue 36): the world on a small tmpfs,
 * callers acknowledged while the disk fills to its last block, then a
 * SIGKILL of the host. Every entry of every acknowledged call (its `start`,
 * its log lines, its `exit`) is in the journal after the restart: the
 * journal's reserve (`journal_reserve_mib`) took them, and past it calls
 * were refused (-32004, `journal_reserve_mib`) rather than acknowledged with
 * their entries only in memory. Real host (`sausage run`), real plugin, real
 * SQLite, a real full disk (root only: a tmpfs is mounted).
 */

import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually } from "./helpers/host.ts";
import { fillOnce, onSmallDisk } from "./helpers/small_disk.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { World } from "../core/world/world.ts";
import { readJournal } from "../core/journal/journal.ts";
import { CHECKOUT, launcher } from "./helpers/cli.ts";

const probe = await builtTestPlugin("probe");
const SCALE = Number(Deno.env.get("SAUSAGE_SOAK") ?? "1") || 1;
const opts = { sanitizeOps: false, sanitizeResources: false };

/** Lines each call logs (on stderr: journaled). */
const LINES = 10;

/** The calls sent at once. */
const CALLERS = 4;

Deno.test({
  name: "fault suite: SIGKILL of the host on a full disk loses no acknowledged call's entries",
  ...opts,
  ignore: Deno.uid() !== 0,
}, async () => {
  await onSmallDisk(40, { probe }, { journal_reserve_mib: 4 }, async (world, mnt) => {
    const host = new Deno.Command(launcher, {
      args: ["run", world, "--headless", "--quiet"],
      cwd: CHECKOUT,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(host.stderr).text();
    const client = await eventually(
      () => WorldClient.connect(new World(world)),
      "the host to start",
      60_000,
    );
    // Each call logs LINES lines padded to its own length: its lines are told apart in the journal.
    const acked: number[] = [];
    let refused = 0;
    let other: string | null = null;
    let next = 0;
    let stop = false;
    const callers = Array.from({ length: CALLERS }, async () => {
      while (!stop) {
        const i = next++;
        const r = await client.send("probe.spew", { n: LINES, len: 100 + i }).catch(() => null);
        if (!r || stop && !("result" in r)) continue;
        if ("result" in r && r.result !== undefined) acked.push(i);
        else if (r.error?.code === -32004) {
          assert.equal((r.error.data as { limit: string }).limit, "journal_reserve_mib");
          refused++;
        } else other ??= JSON.stringify(r);
        if (refused) await new Promise((res) => setTimeout(res, 20));
      }
    });
    await eventually(() => acked.length >= 20 * SCALE, "20 acknowledged calls", 120_000);
    const before = acked.length;
    // Once, as a disk fills (a filler that takes every byte freed after would take the reserve too).
    const filled = fillOnce(`${mnt}/filler`);
    // Calls go on against the full disk until they are refused (or for 10 s), and for a while after.
    const full = Date.now();
    await eventually(() => refused >= 20 || Date.now() - full > 10_000, "refusals", 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    host.kill("SIGKILL");
    stop = true;
    await host.status;
    client.close();
    await Promise.all(callers);
    const said = await stderr;
    assert.equal(other, null, `an answer neither a result nor -32004: ${other}`);
    // Space returns (the disk's filler goes); the journal opens without repair.
    Deno.removeSync(`${mnt}/filler`);
    const path = `${world}/state/core/journal.sqlite`;
    const db = new DatabaseSync(path);
    const check = db.prepare("PRAGMA integrity_check").get() as Record<string, string>;
    db.close();
    assert.equal(Object.values(check)[0], "ok");
    const lines = readJournal(path, { grep: "spew ", limit: 10_000 })
      .filter((e) => e.stream === "stderr");
    const byCall = new Map<number, number>();
    for (const e of lines) {
      const pad = e.line.split(" ")[2]?.length ?? 0;
      byCall.set(pad - 100, (byCall.get(pad - 100) ?? 0) + 1);
    }
    const lost = acked.filter((i) => byCall.get(i) !== LINES);
    assert.deepEqual(
      lost,
      [],
      `${lost.length} of ${acked.length} acknowledged calls (${
        acked.length - before
      } after the disk filled) have not all their ${LINES} lines journaled`,
    );
    assert.ok(refused >= 20, `calls are refused on the full disk (${refused})`);
    assert.match(said, /is full: the journal writes into its reserve/, said);
    const used = readJournal(path, { grep: "journal-reserve-used" });
    assert.equal(used.length, 1, "the reserve was given to the journal once");
    report({
      case: "SIGKILL on a full disk",
      filled_bytes: filled,
      acknowledged_calls: acked.length,
      acknowledged_after_fill: acked.length - before,
      acknowledged_lines: acked.length * LINES,
      refused,
      lost: lost.length,
    });
  });
});

function report(figures: Record<string, unknown>): void {
  console.log(`fault-suite: ${JSON.stringify(figures)}`);
}
