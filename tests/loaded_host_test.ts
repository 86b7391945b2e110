/**
 * A loaded host does not lose its workers (issue 37, item 4): a real
 * nats-server, the host's NATS side (`WorkerSet`) in this process, and three
 * real `sausage worker` processes that beat every second. This process's
 * event loop is then blocked, or kept busy, for twice the loss time: the
 * workers' heartbeats wait in the socket, and no idle worker is declared lost
 * (a loss waits for a round trip to the server that finds nothing from the
 * worker); nor when it falls behind a flood of messages that its beats wait
 * behind, while its own timers run on time. A worker that is stopped (SIGSTOP: still connected, but mute) is
 * lost all the same, and rejoins when it goes on.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { NatsClient } from "../core/remote/nats_client.ts";
import { Subjects } from "../core/remote/wire.ts";
import { WorkerSet } from "../core/remote/worker_set.ts";
import type { Mount } from "../vfs/mount.ts";
import { natsServerPath, TestNats, worldUsers } from "./helpers/nats.ts";
import { launcher } from "./helpers/cli.ts";
import { eventually } from "./helpers/host.ts";

const WORLD = "loaded";
const LOSS_MS = 2500;

/** Holds this process's event loop for `ms` (a host too busy to read its socket). */
function block(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* busy */ }
}

Deno.test({
  name:
    "a host whose loop is blocked or busy past loss_ms loses no idle worker; a mute one is lost",
  ignore: natsServerPath() === null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const ids = ["w1", "w2", "w3"];
    const users = worldUsers(WORLD, ids);
    const nats = await TestNats.start({ [WORLD]: users });
    const subjects = new Subjects(WORLD);
    const host = await NatsClient.connect({
      url: nats.url,
      user: users.host.user,
      password: users.host.password,
      inboxPrefix: subjects.hostInbox,
    });
    const events: [string, Record<string, unknown>][] = [];
    // No process runs: the world is never read.
    const set = new WorkerSet(host, subjects, {} as Mount, (e, f) => events.push([e, f]), LOSS_MS);
    set.start();
    await host.flush();
    const workers = ids.map((id) =>
      new Deno.Command(launcher, {
        args: [
          ...["worker", "--nats", nats.url, "--world", WORLD, "--id", id],
          ...["--user", users.workers[id].user, "--sandboxes", "1", "--memory-mib", "64"],
        ],
        env: { SAUSAGE_NATS_PASSWORD: users.workers[id].password },
        stdout: "null",
        stderr: "null",
      }).spawn()
    );
    const lost = () => events.filter(([e]) => e === "worker-lost").map(([, f]) => f);
    const joinedAt = () => new Map(set.list().map((w) => [w.worker, w.joined]));
    try {
      await eventually(() => set.list().length === 3, "three workers", 120_000);
      const joined = joinedAt();
      // Each has beaten a few times since it joined.
      await new Promise((r) => setTimeout(r, 2500));

      await t.step("the loop blocked for 2 x loss_ms: nobody lost", async () => {
        block(2 * LOSS_MS);
        // Checks every 100 ms, a ping, a round trip: well past any decision.
        await new Promise((r) => setTimeout(r, LOSS_MS));
        assert.deepEqual(lost(), []);
        assert.deepEqual(joinedAt(), joined);
      });

      await t.step("the loop busy for 2 x loss_ms (200 ms turns): nobody lost", async () => {
        const end = Date.now() + 2 * LOSS_MS;
        while (Date.now() < end) {
          block(200);
          await new Promise((r) => setTimeout(r, 0));
        }
        await new Promise((r) => setTimeout(r, LOSS_MS));
        assert.deepEqual(lost(), []);
        assert.deepEqual(joinedAt(), joined);
      });

      await t.step("the host 2 x loss_ms behind its inbound messages: nobody lost", async () => {
        // A flood the host handles 2 ms a message: the workers' beats wait behind it in the
        // server and the socket, while this host's timers run on time (each turn is short).
        const n = 2 * LOSS_MS / 2;
        let handled = 0;
        const stop = host.subscribe(`sausage.${WORLD}.flood`, () => {
          block(2);
          handled++;
        });
        await host.flush();
        const flood = new Deno.Command(Deno.execPath(), {
          args: [
            ...["run", "--allow-all", new URL("./helpers/nats_flood.ts", import.meta.url).pathname],
            ...[nats.url, `sausage.${WORLD}.flood`, String(n), "4096"],
          ],
          env: { NATS_USER: users.host.user, NATS_PASSWORD: users.host.password },
          stdout: "null",
          stderr: "inherit",
        }).spawn();
        const started = Date.now();
        assert((await flood.status).success, "the flood's publisher failed");
        await eventually(() => handled === n, "the flood handled", 120_000);
        const behind = Date.now() - started;
        stop();
        console.log(`the flood took the host ${(behind / 1000).toFixed(1)} s`);
        await new Promise((r) => setTimeout(r, LOSS_MS));
        assert.deepEqual(lost(), []);
        assert.deepEqual(joinedAt(), joined);
      });

      await t.step(
        "a stopped worker (connected, mute) is lost; it rejoins when it goes on",
        async () => {
          const w3 = workers[2];
          Deno.kill(w3.pid, "SIGSTOP");
          const stoppedAt = Date.now();
          try {
            await eventually(() => lost().length > 0, "w3 lost", 30_000);
          } finally {
            Deno.kill(w3.pid, "SIGCONT");
          }
          const took = Date.now() - stoppedAt;
          console.log(`w3 lost ${(took / 1000).toFixed(1)} s after SIGSTOP`);
          assert.deepEqual(lost().map((f) => f.worker), ["w3"]);
          assert.match(lost()[0].reason as string, /no heartbeat for .* nor an answer to a ping/);
          assert(took >= LOSS_MS - 1000, `lost after ${took} ms`);
          await eventually(() => set.list().length === 3, "w3 back", 30_000);
        },
      );
    } finally {
      for (const w of workers) {
        try {
          w.kill("SIGTERM");
        } catch { /* gone */ }
        await w.status;
      }
      set.close();
      host.close();
      await nats.stop();
    }
  },
});
