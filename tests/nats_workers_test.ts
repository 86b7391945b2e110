/**
 * Workers over NATS, end to end (issue 29): a real nats-server on a free
 * loopback port with per-world credentials, a host (`sausage run`) and
 * three workers (`sausage worker`), all real processes on this machine.
 * Calls placed "anywhere" spread over every worker; notes.add from all
 * three keeps every note (locks and files through the host); a worker
 * killed with SIGKILL has its calls answered -32002 within 3 s and its
 * locks freed; NATS stopped: local calls go on, remote ones fail fast,
 * then resume when it returns.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { WorldClient } from "../core/control/world_client.ts";
import { World } from "../core/world/world.ts";
import type { WorkerInfo } from "../core/remote/worker_set.ts";
import type { ProcessInfo } from "../core/processes/process.ts";
import { builtCrate, builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { launcher, sausage } from "./helpers/cli.ts";
import { natsServerPath, TestNats, worldUsers } from "./helpers/nats.ts";
import { eventually } from "./helpers/host.ts";
import { ErrorCode } from "../rpc/errors.ts";
import { createUser } from "@nats-io/nkeys";
import { nkeyUserLine } from "../cli/workers_add.ts";
import { Subjects } from "../core/remote/wire.ts";
import { RACY_MS } from "../core/remote/kept_files.ts";
import { NatsClient, type PermissionRefusal } from "../core/remote/nats_client.ts";
import { encodeFrames } from "../sandbox/hop/frames.ts";

const WORLD = "natstest";

if (natsServerPath() === null) {
  console.warn(
    "nats_workers_test: skipped: nats-server is not installed and npm test could not install it " +
      "(scripts/install-toolchain.sh --with-test-tools: apt-get install nats-server)",
  );
}

/** A `sausage` subprocess left running (the host, a worker). */
function spawn(args: string[], env: Record<string, string> = {}): Deno.ChildProcess {
  return new Deno.Command(launcher, { args, env, stdout: "null", stderr: "null" }).spawn();
}

/** Makes `n` calls of `method` from `callers` connections at once; resolves with the responses. */
async function calls(
  clients: WorldClient[],
  n: number,
  method: string,
  params: (i: number) => Record<string, unknown>,
) {
  let next = 0;
  const out: Awaited<ReturnType<WorldClient["send"]>>[] = [];
  await Promise.all(clients.map(async (c) => {
    while (next < n) out.push(await c.send(method, params(next++)));
  }));
  return out;
}

Deno.test({
  name: "workers over NATS: placement, files and locks through the host, a lost worker, NATS down",
  ignore: natsServerPath() === null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const probe = await builtTestPlugin("probe");
    const fsprobe = await builtTestPlugin("fsprobe");
    const notes = await builtCrate("examples/notes", "notes");
    const users = worldUsers(WORLD);
    const nats = await TestNats.start({ [WORLD]: users });
    // The host's password outside the world (guests can read config/).
    const secrets = await Deno.makeTempDir({ prefix: "sausage-secrets-" });
    await Deno.writeTextFile(`${secrets}/host-password`, users.host.password + "\n");
    const root = await makeWorld({
      // probe anywhere; rprobe (the same component) and notes on workers only; lprobe on the host.
      plugins: { probe, rprobe: probe, lprobe: probe, fsprobe, notes },
      files: {
        "config/nats.json": JSON.stringify({
          url: nats.url,
          user: users.host.user,
          password_file: `${secrets}/host-password`,
          world: WORLD,
        }),
        "config/placement.json": JSON.stringify({
          plugins: { probe: "anywhere", rprobe: "remote", fsprobe: "remote", notes: "remote" },
        }),
        "config/limits.json": JSON.stringify({ sandboxes: 1 }),
        "hello.txt": "from the host",
      },
    });
    const world = new World(root);
    let host = spawn(["run", "--headless", root]);
    const workers = new Map<string, Deno.ChildProcess>();
    for (const id of ["w1", "w2", "w3"]) {
      workers.set(
        id,
        spawn(
          [
            ...["worker", "--nats", nats.url, "--world", WORLD, "--user", users.workers[id].user],
            ...["--id", id, "--memory-mib", "192"],
          ],
          { SAUSAGE_NATS_PASSWORD: users.workers[id].password },
        ),
      );
    }
    let client = await eventually(
      () => WorldClient.connect(world).catch(() => null),
      "the host",
      60_000,
    );
    const clients = [client];
    for (let i = 1; i < 10; i++) clients.push((await WorldClient.connect(world))!);
    const listed = async () => (await client.request("$/workers", {})) as WorkerInfo[];
    try {
      await t.step("every worker joins", async () => {
        const seen = await eventually(
          async () => {
            const l = await listed();
            return l.length === 3 ? l : null;
          },
          "three workers",
          30_000,
        );
        assert.deepEqual(seen.map((w) => w.worker).sort(), ["w1", "w2", "w3"]);
        const out = await sausage("workers", root);
        assert.match(
          out.stdout,
          /^WORKER +MACHINE +LOAD +SANDBOXES +PLACED +KEPT FILES +JOINED +SEEN/,
        );
        for (const id of ["w1", "w2", "w3"]) assert.match(out.stdout, new RegExp(`\\b${id}\\b`));
      });

      await t.step(
        "3,000 calls placed anywhere: all answered, every worker takes part",
        async () => {
          const before = await listed();
          const rs = await calls(clients, 3000, "probe.echo", (i) => ({ i }));
          assert.deepEqual(rs.length, 3000);
          for (const r of rs) assert(!r.error, JSON.stringify(r.error));
          assert.deepEqual(new Set(rs.map((r) => (r.result as { i: number }).i)).size, 3000);
          const after = await listed();
          for (const w of after) {
            const was = before.find((b) => b.worker === w.worker)!.placed;
            assert(w.placed > was, `${w.worker} took no call: ${JSON.stringify(after)}`);
          }
        },
      );

      await t.step(
        "files through the host: a remote process reads and writes the world",
        async () => {
          const r = await client.request("fsprobe.run", {
            ops: [
              { op: "read", path: "/hello.txt" },
              { op: "write", path: "/state/from-worker.txt", text: "written remotely" },
              { op: "read", path: "/config/nats.json" },
            ],
          }) as unknown[];
          assert.deepEqual(r[0], "from the host");
          assert.deepEqual(
            await Deno.readTextFile(`${root}/state/from-worker.txt`),
            "written remotely",
          );
          assert.deepEqual((r[2] as { error?: string }).error, undefined); // the world's own files
        },
      );

      await t.step(
        "a file kept by the workers: a write by a local process, the host or a remote one is read next",
        async () => {
          const reads = async () => {
            const rs = await calls(clients, 12, "fsprobe.run", () => ({
              ops: [{ op: "read", path: "/hello.txt" }],
            }));
            for (const r of rs) assert(!r.error, JSON.stringify(r.error));
            return new Set(rs.map((r) => (r.result as string[])[0]));
          };
          const kept = async () => (await listed()).reduce((n, w) => n + w.kept, 0);
          // Each text as long as the last: only the file's times tell a change.
          const texts = ["from a local!", "from outside!", "from remote!!"];
          const writes = [
            () => client.request("lprobe.write_file", { path: "/hello.txt", text: texts[0] }),
            () => Deno.writeTextFile(`${root}/hello.txt`, texts[1]),
            () =>
              client.request("fsprobe.run", {
                ops: [{ op: "write", path: "/hello.txt", text: texts[2] }],
              }),
          ];
          let now = "from the host";
          for (let i = 0; i < writes.length; i++) {
            // Unchanged for over RACY_MS: read, and kept by the workers that read it.
            await new Promise((r) => setTimeout(r, RACY_MS + 200));
            assert.deepEqual(await reads(), new Set([now]));
            assert.deepEqual(await reads(), new Set([now]));
            assert((await kept()) > 0, "no worker keeps the file");
            await writes[i]();
            now = texts[i];
            assert.deepEqual(await reads(), new Set([now]), `after the write ${i + 1}`);
          }
          await Deno.writeTextFile(`${root}/hello.txt`, "from the host");
        },
      );

      await t.step(
        "a worker bounds its processes' memories (--memory-mib): -32004, the worker lives",
        async () => {
          // 192 MiB over the worker's sandboxes (one per core): 150 fits in no sandbox's share.
          const [big] = await calls([client], 1, "rprobe.hog", () => ({ mb: 150 }));
          assert.equal(big.error?.code, ErrorCode.LimitReached, JSON.stringify(big));
          assert.equal((big.error?.data as { limit?: string }).limit, "world_memory_mib");
          assert.deepEqual(await client.request("rprobe.hog", { mb: 16 }), { held_mb: 16 });
        },
      );

      await t.step("300 notes.add from all three workers leave exactly 300 notes", async () => {
        const before = await listed();
        const rs = await calls(clients, 300, "notes.add", (i) => ({ text: `note ${i}` }));
        for (const r of rs) assert(!r.error, JSON.stringify(r.error));
        const list = await client.request("notes.list", {}) as string[];
        assert.deepEqual(list.length, 300);
        assert.deepEqual(new Set(list).size, 300);
        const after = await listed();
        for (const w of after) {
          const was = before.find((b) => b.worker === w.worker)!.placed;
          assert(w.placed > was, `${w.worker} added no note`);
        }
      });

      await t.step(
        "a worker killed mid-call: its calls end -32002 within 3 s, locks freed",
        async () => {
          // Each rprobe process takes a lock, then waits on a long call of its own.
          const waiting: WorldClient[] = [];
          for (let i = 0; i < 6; i++) waiting.push((await WorldClient.connect(world))!);
          const pending = Array.from({ length: 6 }, (_, i) =>
            waiting[i].send("rprobe.fanout", {
              calls: [
                { method: "core.lock", params: { path: `/held/${i}` } },
                { method: "fsprobe.run", params: { ops: [{ op: "sleep", ms: 60_000 }] } },
              ],
            }).then((r) => ({ r, at: performance.now() })));
          const running = await eventually(
            async () => {
              const ps = (await client.request("$/ps", {})) as ProcessInfo[];
              const mine = ps.filter((p) => p.plugin === "rprobe" && p.worker);
              return mine.length === 6 && ps.filter((p) => p.plugin === "fsprobe").length === 6
                ? mine
                : null;
            },
            "six rprobe processes on workers",
            20_000,
          );
          const victim = running[0].worker!;
          const psOut = await sausage("ps", root);
          assert.match(psOut.stdout, /WORKER/);
          assert.match(psOut.stdout, new RegExp(`rprobe-\\S+ .* ${victim}\\b`));
          // Spread over the workers, not all on one (placement reserves as it picks).
          assert(new Set(running.map((p) => p.worker)).size > 1, JSON.stringify(running));
          const held = (p: ProcessInfo) =>
            Number(
              (p.params.calls as { params: { path: string } }[])[0].params.path.split("/").pop(),
            );
          const onVictim = running.filter((p) => p.worker === victim).map(held);
          const killedAt = performance.now();
          workers.get(victim)!.kill("SIGKILL");
          const results = await Promise.race([
            Promise.all(onVictim.map((i) => pending[i])),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error("no answer within 5 s")), 5000)
            ),
          ]);
          for (const { r, at } of results) {
            assert.deepEqual(r.error?.code, -32002, JSON.stringify(r));
            assert.match(r.error!.message, new RegExp(`the worker ${victim} was lost`));
            assert(at - killedAt < 3000, `answered ${Math.round(at - killedAt)} ms after the kill`);
          }
          // Its locks are free: another process takes them without waiting.
          for (const i of onVictim) {
            const r = await client.request("rprobe.call", {
              method: "core.lock",
              params: { path: `/held/${i}`, wait: false },
            });
            assert.deepEqual((r as { result?: unknown }).result ?? r, { held: true });
          }
          // Later calls go to the others.
          const rs = await calls(clients, 30, "rprobe.noop", () => ({}));
          for (const r of rs) assert(!r.error, JSON.stringify(r.error));
          assert(!(await listed()).some((w) => w.worker === victim));
          const log = await sausage("log", root, "-n", "100000");
          assert.match(log.stdout, /worker-lost/);
          assert.match(log.stdout, / on w[123] /);
          for (const c of waiting) c.close(); // their calls on the other workers stop
        },
      );

      await t.step(
        "NATS stopped: local calls go on, remote ones fail fast, then resume",
        async () => {
          await nats.stop();
          const local = await client.send("lprobe.noop", {});
          assert(!local.error, JSON.stringify(local.error));
          const began = performance.now();
          const remote = await eventually(
            async () => {
              const r = await client.send("rprobe.noop", {});
              return r.error ? r : null;
            },
            "a remote call failing",
            5000,
          );
          assert.match(remote.error!.message, /NATS is unreachable|no worker/);
          assert(performance.now() - began < 3000);
          const failFast = performance.now();
          await client.send("rprobe.noop", {});
          assert(performance.now() - failFast < 500, "a remote call waited while NATS was down");
          await nats.restart();
          await eventually(async () => (await listed()).length === 2, "workers rejoining", 20_000);
          const back = await client.send("rprobe.echo", { back: true });
          assert.deepEqual(back.result, { back: true });
        },
      );

      await t.step(
        "a host killed and started again: what its workers ran for it ends",
        async () => {
          const waiting = (await WorldClient.connect(world))!;
          waiting.send("fsprobe.run", { ops: [{ op: "sleep", ms: 60_000 }] }).catch(() => {});
          const busy = async () => (await listed()).filter((w) => w.load > 0);
          await eventually(async () => (await busy()).length > 0, "a busy worker", 10_000);
          host.kill("SIGKILL");
          await host.status;
          for (const c of [...clients, waiting]) c.close();
          host = spawn(["run", "--headless", root]);
          const again = await eventually(
            () => WorldClient.connect(world).catch(() => null),
            "the host again",
            60_000,
          );
          clients.splice(0, clients.length, again);
          client = again;
          await eventually(async () => (await listed()).length === 2, "workers joining", 20_000);
          // The new host greets each worker with its run: the orphan ends without a call.
          await eventually(async () => (await busy()).length === 0, "orphans ended", 10_000);
          for (let i = 0; i < 4; i++) {
            assert.deepEqual((await again.send("rprobe.echo", { i })).result, { i });
          }
        },
      );

      await t.step(
        "sausage call without a running host: a transient host waits for a heartbeat",
        async () => {
          for (const c of clients) c.close();
          host.kill("SIGTERM");
          await host.status;
          const r = await sausage("call", root, "rprobe.echo", '{"transient": true}');
          assert.equal(r.code, 0, r.stderr);
          assert.deepEqual(JSON.parse(r.stdout), { transient: true });
          host = spawn(["run", "--headless", root]); // for the finally block
        },
      );
    } finally {
      for (const c of clients) c.close();
      for (const w of workers.values()) {
        try {
          w.kill("SIGTERM");
        } catch { /* gone */ }
        await w.status;
      }
      try {
        host.kill("SIGTERM");
      } catch { /* ended */ }
      await host.status;
      await nats.stop();
      await Deno.remove(root, { recursive: true }).catch(() => {});
      await Deno.remove(secrets, { recursive: true }).catch(() => {});
    }
  },
});

/** Whether workers can run in a mount namespace of their own (root, util-linux's `unshare`). */
async function canIsolate(): Promise<boolean> {
  try {
    const r = await new Deno.Command("unshare", {
      args: ["-m", "--propagation", "private", "true"],
      stdout: "null",
      stderr: "null",
    }).output();
    return r.success;
  } catch {
    return false;
  }
}

/** CPU time (s) of `pid` and every process under it, from `/proc`. */
function treeCpu(pid: number): number {
  let total = 0;
  const walk = (p: number) => {
    try {
      const stat = Deno.readTextFileSync(`/proc/${p}/stat`);
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(f[11]) + Number(f[12])) / 100; // utime, stime (clock ticks)
      for (const t of Deno.readDirSync(`/proc/${p}/task`)) {
        const kids = Deno.readTextFileSync(`/proc/${p}/task/${t.name}/children`).trim();
        for (const k of kids ? kids.split(" ") : []) walk(Number(k));
      }
    } catch { /* ended meanwhile */ }
  };
  walk(pid);
  return total;
}

Deno.test({
  name:
    "workers over NATS: one identity each, a duplicate refused, a hostile worker, retried calls, cold starts, a host killed",
  ignore: natsServerPath() === null,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const world2 = "natsids";
    const probe = await builtTestPlugin("probe");
    const isolate = await canIsolate();
    if (!isolate) console.warn("workers run without a mount namespace of their own (not root)");
    const secrets = await Deno.makeTempDir({ prefix: "sausage-ids-" });
    // w1's credentials as an owner makes them; the others' the same way, in this process.
    const made = await sausage("workers", "add", world2, "w1", "--seed-file", `${secrets}/w1.nk`);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, /--nkey-file/);
    const lines = [made.stdout.trim()];
    const cold = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);
    for (const id of ["w2", "w3", "mallory", ...cold]) {
      const u = createUser();
      await Deno.writeTextFile(`${secrets}/${id}.nk`, new TextDecoder().decode(u.getSeed()));
      lines.push(nkeyUserLine(u.getPublicKey(), new Subjects(world2).workerPermissions(id)));
    }
    const users = worldUsers(world2, []);
    const nats = await TestNats.start({ [world2]: users }, { users: lines });
    await Deno.writeTextFile(`${secrets}/host-password`, users.host.password);
    const root = await makeWorld({
      plugins: { probe },
      files: {
        "config/nats.json": JSON.stringify({
          url: nats.url,
          user: users.host.user,
          password_file: `${secrets}/host-password`,
          world: world2,
        }),
        "config/placement.json": JSON.stringify({ plugins: { probe: "remote" } }),
        "config/limits.json": JSON.stringify({ sandboxes: 1 }),
      },
    });
    const world = new World(root);
    /** A worker with `id`'s seed, in a mount namespace where the world folder is empty. */
    const worker = (id: string, opts: { stderr?: "piped"; cache?: string } = {}) => {
      const args = [
        ...["worker", "--nats", nats.url, "--world", world2, "--id", id],
        ...["--nkey-file", `${secrets}/${id}.nk`, "--sandboxes", "1", "--memory-mib", "128"],
      ];
      const env: Record<string, string> = opts.cache ? { SAUSAGE_CACHE_DIR: opts.cache } : {};
      const [cmd, all] = isolate
        ? [
          "unshare",
          [
            ...["-m", "--propagation", "private", "sh", "-c"],
            'mount -t tmpfs tmpfs "$0" && exec "$@"',
            ...[root, launcher, ...args],
          ],
        ]
        : [launcher, args];
      return new Deno.Command(cmd, {
        args: all,
        env,
        stdout: "null",
        stderr: opts.stderr ?? "null",
      }).spawn();
    };
    let host = spawn(["run", "--headless", root]);
    const workers = new Map<string, Deno.ChildProcess>();
    for (const id of ["w1", "w2", "w3"]) workers.set(id, worker(id));
    const client = await eventually(
      () => WorldClient.connect(world).catch(() => null),
      "the host",
      60_000,
    );
    const clients = [client];
    for (let i = 1; i < 4; i++) clients.push((await WorldClient.connect(world))!);
    const listed = async () => (await client.request("$/workers", {})) as WorkerInfo[];
    const journal = async (event: string) =>
      (await sausage("log", root, "-n", "100000")).stdout.split("\n").filter((l) =>
        l.includes(event)
      );
    const extra: Deno.ChildProcess[] = [];
    try {
      await t.step("three workers join, each with its own nkey", async () => {
        await eventually(async () => (await listed()).length === 3, "three workers", 60_000);
      });

      await t.step("a second worker with w1's id is refused; the counter stays exact", async () => {
        const twin = worker("w1", { stderr: "piped" });
        extra.push(twin);
        await eventually(
          async () => (await journal("worker-refused")).length > 0,
          "the host refusing the twin",
          60_000,
        );
        const rs = await calls(clients, 60, "probe.incr", () => ({ path: "/c", file: "/state/c" }));
        for (const r of rs) assert(!r.error, JSON.stringify(r.error));
        assert.deepEqual(
          rs.map((r) => r.result as number).sort((a, b) => a - b),
          Array.from({ length: 60 }, (_, i) => i + 1),
        );
        assert.equal(Number(await Deno.readTextFile(`${root}/state/c`)), 60);
        assert.deepEqual((await listed()).map((w) => w.worker).sort(), ["w1", "w2", "w3"]);
        twin.kill("SIGTERM");
        const said = new TextDecoder().decode((await twin.output()).stderr);
        assert.match(said, /w1: refused by the host: another worker with the id w1 is live/);
        assert.equal((await journal("worker-refused")).length, 1);
      });

      await t.step(
        "a worker's valid credentials: it cannot read, speak or beat as another",
        async () => {
          const refusals: PermissionRefusal[] = [];
          const s = new Subjects(world2);
          const mallory = await NatsClient.connect({
            url: nats.url,
            nkeySeed: (await Deno.readTextFile(`${secrets}/mallory.nk`)).trim(),
            inboxPrefix: s.inbox("mallory"),
            onPermission: (r) => refusals.push(r),
          });
          try {
            const stolen: string[] = [];
            for (const id of ["w1", "w2", "w3"]) {
              mallory.subscribe(s.worker(id), (m) => stolen.push(m.subject));
            }
            mallory.subscribe(`sausage.${world2}.>`, (m) => stolen.push(m.subject));
            await mallory.flush();
            // Speaking for w1: a bad frame, heartbeats; beats of its own that name w2.
            const lead = { op: "worker", id: "w1", instance: "x" };
            mallory.publish(s.toHost("w1"), encodeFrames([lead, { op: "exit", pid: "1" }]));
            for (let i = 0; i < 200; i++) {
              mallory.publish(
                s.heartbeat("w1"),
                JSON.stringify({ worker: "w1", instance: `f${i}` }),
              );
              mallory.publish(
                s.heartbeat("mallory"),
                JSON.stringify({ worker: "w2", instance: `g${i}`, seq: 1, load: 0, slots: 64 }),
              );
            }
            const rs = await calls(clients, 30, "probe.echo", (i) => ({ i }));
            for (const r of rs) assert(!r.error, JSON.stringify(r.error));
            await eventually(() => refusals.length >= 6, "the server's refusals", 10_000);
            assert.deepEqual(stolen, [], "it heard other workers' runs");
            const kinds = new Set(refusals.map((r) => `${r.operation} ${r.subject}`));
            for (const id of ["w1", "w2", "w3"]) assert(kinds.has(`subscription ${s.worker(id)}`));
            assert(kinds.has(`publish ${s.toHost("w1")}`));
            assert(kinds.has(`publish ${s.heartbeat("w1")}`));
            assert.deepEqual((await listed()).map((w) => w.worker).sort(), ["w1", "w2", "w3"]);
            assert.deepEqual(await journal("worker-lost"), []);
          } finally {
            mallory.close();
          }
        },
      );

      await t.step("a retried call with the same key runs once", async () => {
        const before = Number(await Deno.readTextFile(`${root}/state/c`));
        const args = ["probe.incr", '{"path": "/c", "file": "/state/c"}', "--key", "retry-1"];
        const first = await sausage("call", root, ...args);
        const second = await sausage("call", root, ...args);
        assert.equal(first.code, 0, first.stderr);
        assert.deepEqual(JSON.parse(second.stdout), JSON.parse(first.stdout));
        assert.equal(JSON.parse(first.stdout), before + 1);
        assert.equal(Number(await Deno.readTextFile(`${root}/state/c`)), before + 1);
      });

      await t.step("20 workers started cold, 300 ms apart, all join", async () => {
        const said = new Map<string, string>();
        const started: Deno.ChildProcess[] = [];
        try {
          for (const id of cold) {
            const cache = await Deno.makeTempDir({ prefix: `sausage-cold-${id}-` });
            const p = worker(id, { cache, stderr: "piped" });
            started.push(p);
            said.set(id, "");
            p.stderr!.pipeThrough(new TextDecoderStream()).pipeTo(
              new WritableStream({ write: (text) => void said.set(id, said.get(id) + text) }),
            ).catch(() => {});
            await new Promise((r) => setTimeout(r, 300));
          }
          const joined = async () => (await listed()).length;
          try {
            await eventually(async () => (await joined()) === 23, "23 workers", 300_000);
          } catch (e) {
            const missing = cold.filter((id) => !/serving world/.test(said.get(id)!));
            for (const id of missing) console.error(`${id}: ${said.get(id)}`);
            throw new Error(`${e}: ${await joined()} joined; missing ${missing.join(" ")}`);
          }
          // Whether cold workers had to try again (a slow first sandbox), for the record.
          const retried = cold.filter((id) => /trying again/.test(said.get(id)!));
          console.error(`cold workers that tried their sandboxes again: ${retried.length}`);
          const rs = await calls(clients, 40, "probe.echo", (i) => ({ i }));
          for (const r of rs) assert(!r.error, JSON.stringify(r.error));
        } finally {
          for (const p of started) {
            try {
              p.kill("SIGTERM");
            } catch { /* gone */ }
            await p.status;
          }
        }
      });

      await t.step(
        "the host killed with SIGKILL: nothing runs on a worker after loss_ms",
        async () => {
          await eventually(async () => (await listed()).length === 3, "the three again", 30_000);
          const spinning = [0, 1].map((i) => clients[i].send("probe.spin", {}).catch(() => null));
          await eventually(
            async () => (await listed()).reduce((n, w) => n + w.load, 0) >= 2,
            "two spinning remote processes",
            30_000,
          );
          const pids = [...workers.values()].map((w) => w.pid);
          const cpu = () => pids.reduce((s, p) => s + treeCpu(p), 0);
          let at = cpu();
          await new Promise((r) => setTimeout(r, 2000));
          const spun = cpu() - at;
          assert(spun > 0.25, `the spinning processes used ${spun.toFixed(2)} s of CPU in 2 s`);
          host.kill("SIGKILL");
          await host.status;
          for (const c of clients) c.close();
          void spinning;
          const killedAt = performance.now();
          await new Promise((r) => setTimeout(r, 2500)); // loss_ms
          // Then the workers go idle: a window of 2 s with (almost) no CPU. On a loaded
          // machine a worker's own late timers may push its check past loss_ms (its held-up
          // time does not count as the host's silence), so the window may come a little later.
          let used = Infinity;
          while (performance.now() - killedAt < 20_000) {
            at = cpu();
            await new Promise((r) => setTimeout(r, 2000));
            used = cpu() - at;
            if (used < 0.15 && used < spun / 2) break;
          }
          console.log(
            `idle ${((performance.now() - killedAt) / 1000).toFixed(1)} s after the kill ` +
              `(a window of 2 s at ${used.toFixed(2)} s of CPU)`,
          );
          assert(
            used < 0.15 && used < spun / 2,
            `the workers still used ${used.toFixed(2)} s of CPU in 2 s, 20 s after the kill (${
              spun.toFixed(2)
            } s spinning before)`,
          );
          host = spawn(["run", "--headless", root]); // for the finally block
        },
      );
    } finally {
      for (const c of clients) c.close();
      for (const w of [...workers.values(), ...extra]) {
        try {
          w.kill("SIGTERM");
        } catch { /* gone */ }
        await w.status;
      }
      try {
        host.kill("SIGTERM");
      } catch { /* ended */ }
      await host.status;
      await nats.stop();
      await Deno.remove(root, { recursive: true }).catch(() => {});
      await Deno.remove(secrets, { recursive: true }).catch(() => {});
    }
  },
});
