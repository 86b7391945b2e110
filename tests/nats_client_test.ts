/**
 * The NATS pieces against a real nats-server with per-world users: the
 * client's credentials, one world's worker shut out of another world's
 * subjects, publishing that fails fast while the server is down and
 * subscriptions that come back with it, and component fetches that give
 * only what the host placed, checked by SHA-256.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { NatsClient, type NatsMsg, type PermissionRefusal } from "../core/remote/nats_client.ts";
import { ComponentShelf } from "../core/remote/component_shelf.ts";
import {
  checkToWorker,
  publishFrames,
  readLead,
  Subjects,
  type ToWorker,
} from "../core/remote/wire.ts";
import { decodeFrames, encodeFrames } from "../sandbox/hop/frames.ts";
import type { ExitMessage, ProcessMessage, RunMessage } from "../sandbox/hop/protocol.ts";
import { SERVED_WORLD } from "../sandbox/hop/terms.ts";
import { ComponentCopies } from "../worker/component_fetch.ts";
import { natsServerPath, TestNats, worldUsers } from "./helpers/nats.ts";
import { sha256 } from "../core/cache/sha256.ts";
import { WorkerSet } from "../core/remote/worker_set.ts";
import type { Mount } from "../vfs/mount.ts";

const ignore = natsServerPath() === null;
const opts = { ignore, sanitizeResources: false, sanitizeOps: false };

/** Resolves with the next message `subscribe` hears on `subject`, or null after `ms`. */
function next(c: NatsClient, subject: string, ms: number): Promise<NatsMsg | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (stop(), resolve(null)), ms);
    const stop = c.subscribe(subject, (m) => {
      clearTimeout(timer);
      stop();
      resolve(m);
    });
  });
}

const users = { a: worldUsers("a"), b: worldUsers("b") };

/** A connection with the host's credentials of `world`, or worker `who`'s own. */
async function client(nats: TestNats, world: "a" | "b", who: "host" | "w1" | "w2") {
  const u = who === "host" ? users[world].host : users[world].workers[who];
  const s = new Subjects(world);
  return await NatsClient.connect({
    url: nats.url,
    user: u.user,
    password: u.password,
    inboxPrefix: who === "host" ? s.hostInbox : s.inbox(who),
  });
}

Deno.test({
  ...opts,
  name: "nats: a wrong password is refused; a worker reaches its own world's subjects only",
  async fn() {
    const nats = await TestNats.start(users);
    try {
      await assert.rejects(
        NatsClient.connect({
          url: nats.url,
          user: users.a.workers.w1.user,
          password: "wrong",
          inboxPrefix: "sausage.a.inbox.w1",
        }, 3000),
        /Authorization Violation/,
      );
      const hostB = await client(nats, "b", "host");
      const workerA = await client(nats, "a", "w1");
      const hostA = await client(nats, "a", "host");
      // A's worker subscribes to B's worker subject: the server sends it nothing.
      const stolen = next(workerA, "sausage.b.w.w1", 1000);
      const own = next(workerA, "sausage.a.w.w1", 1000);
      await new Promise((r) => setTimeout(r, 100));
      hostB.publish("sausage.b.w.w1", "for b's worker");
      hostA.publish("sausage.a.w.w1", "for a's worker");
      assert.equal(await stolen, null);
      assert.equal(new TextDecoder().decode((await own)!.data), "for a's worker");
      // Nor can it publish as B's worker: B's host hears nothing.
      const heard = next(hostB, "sausage.b.hb.w1", 1000);
      await new Promise((r) => setTimeout(r, 100));
      workerA.publish("sausage.b.hb.w1", '{"worker":"intruder"}');
      assert.equal(await heard, null);
      for (const c of [hostA, hostB, workerA]) c.close();
    } finally {
      await nats.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "nats: publishing throws at once while the server is down; subscriptions come back",
  async fn() {
    const nats = await TestNats.start(users);
    const statuses: (string | null)[] = [];
    const u = users.a.host;
    const c = await NatsClient.connect({
      url: nats.url,
      user: u.user,
      password: u.password,
      inboxPrefix: "sausage.a.inbox",
      onStatus: (down) => statuses.push(down),
    });
    try {
      c.subscribe("sausage.a.echo", (m) => c.publish(m.reply!, m.data));
      assert.equal(
        new TextDecoder().decode((await c.request("sausage.a.echo", "one", 2000)).data),
        "one",
      );
      await nats.stop();
      while (c.down === null) await new Promise((r) => setTimeout(r, 10));
      const t = performance.now();
      await assert.rejects(c.request("sausage.a.echo", "two", 2000), /unreachable/);
      assert(performance.now() - t < 50);
      await nats.restart();
      while (c.down !== null) await new Promise((r) => setTimeout(r, 20));
      assert.equal(
        new TextDecoder().decode((await c.request("sausage.a.echo", "three", 2000)).data),
        "three",
      );
      assert.equal(statuses.length, 2);
      assert.equal(statuses[1], null);
    } finally {
      c.close();
      await nats.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "nats: no responders fails a request at once; a refused publish is reported",
  async fn() {
    const nats = await TestNats.start(users);
    const refusals: PermissionRefusal[] = [];
    const u = users.a.workers.w1;
    const worker = await NatsClient.connect({
      url: nats.url,
      user: u.user,
      password: u.password,
      inboxPrefix: "sausage.a.inbox.w1",
      onPermission: (r) => refusals.push(r),
    });
    const host = await client(nats, "a", "host");
    try {
      // Nobody listens on the host's fetch subject yet: the server says so, no 10 s wait.
      const t = performance.now();
      await assert.rejects(worker.request("sausage.a.blob.w1", "{}", 10_000), /no responders/i);
      assert(performance.now() - t < 2000, `${performance.now() - t} ms`);
      // Another worker's subject: the server's -ERR reaches `onPermission`.
      worker.publish("sausage.a.hb.w2", "{}");
      await until(() => refusals.length > 0);
      assert.deepEqual(refusals[0].operation, "publish");
      assert.deepEqual(refusals[0].subject, "sausage.a.hb.w2");
      assert.match(refusals[0].message, /Permissions Violation/);
      // The connection stays up for what it may do.
      host.subscribe("sausage.a.blob.w1", (m) => host.publish(m.reply!, m.data));
      await host.flush();
      assert.equal(
        new TextDecoder().decode((await worker.request("sausage.a.blob.w1", "x", 2000)).data),
        "x",
      );
      await worker.drain();
    } finally {
      worker.close();
      host.close();
      await nats.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "nats: batches over max_payload are split; one message too big throws",
  async fn() {
    const nats = await TestNats.start(users);
    const c = await client(nats, "a", "host");
    try {
      const got: number[] = [];
      c.subscribe(
        "sausage.a.host",
        (m) => got.push(decodeFrames(readLead(m.data, (l) => l).rest, (f) => f, 2 ** 24).length),
      );
      const line = "x".repeat(3 * 2 ** 20); // three of them pass 8 MB (the test server's max_payload)
      const big = { op: "out", pid: "1", line };
      const lead = { op: "worker" as const, id: "w", instance: "i" };
      publishFrames(c, "sausage.a.host", lead, [big, big, big, big]);
      while (got.reduce((a, b) => a + b, 0) < 4) await new Promise((r) => setTimeout(r, 20));
      assert(got.length > 1, `one message of all four: ${got}`);
      assert.throws(
        () => publishFrames(c, "sausage.a.host", lead, [{ ...big, line: "y".repeat(9 * 2 ** 20) }]),
        /max_payload/,
      );
    } finally {
      c.close();
      await nats.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "nats: a worker fetches only components the host placed, each file checked by SHA-256",
  async fn() {
    const nats = await TestNats.start(users);
    const host = await client(nats, "a", "host");
    const worker = await client(nats, "a", "w1");
    const tmp = await Deno.makeTempDir({ prefix: "sausage-fetch-" });
    try {
      // An entry as the host's cache holds one: files and a manifest of their hashes.
      const hash = "ab".repeat(32);
      const dir = `${tmp}/host/view1/${hash}`;
      await Deno.mkdir(dir, { recursive: true });
      const big = crypto.getRandomValues(new Uint8Array(65536)).map((b, i) => b ^ i);
      const files: Record<string, Uint8Array> = {
        "plugin.js": new TextEncoder().encode("export {};\n"),
        "plugin.core.wasm": new Uint8Array([...big, ...big, ...big]),
      };
      const manifest: { engine: string; files: Record<string, unknown> } = {
        engine: "t",
        files: {},
      };
      for (const [name, bytes] of Object.entries(files)) {
        await Deno.writeFile(`${dir}/${name}`, bytes);
        manifest.files[name] = { size: bytes.length, sha256: await sha256(bytes) };
      }
      await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify(manifest));
      await Deno.writeTextFile(`${tmp}/host/view1/secret.txt`, "not a component");
      const shelf = new ComponentShelf();
      host.subscribe("sausage.a.blob.*", (m) => shelf.serve(host, m));
      await host.flush(); // the subscription is live before the worker asks (another connection)
      const copies = new ComponentCopies(worker, "sausage.a.blob.w1", `${tmp}/worker`);
      await Deno.mkdir(`${tmp}/worker`);
      // Not placed yet: refused.
      await assert.rejects(copies.get(`view1.${hash}`), /was placed here/);
      const key = shelf.share(dir);
      assert.equal(key, `view1.${hash}`);
      const got = await copies.get(key);
      for (const [name, bytes] of Object.entries(files)) {
        assert.deepEqual(await Deno.readFile(`${got}/${name}`), bytes);
      }
      // A file the manifest does not list, or a path out of the entry: refused by the host.
      const raw = (req: unknown) => host.request("sausage.a.blob.w1", JSON.stringify(req), 2000);
      for (const file of ["../secret.txt", "secret.txt"]) {
        const r = await raw({ entry: key, file, offset: 0 });
        assert.equal(r.data[0], 1);
      }
      // A copy whose bytes differ from the manifest is not used: fetched again.
      await Deno.writeFile(`${got}/plugin.js`, new TextEncoder().encode("tampered"));
      const again = await new ComponentCopies(worker, "sausage.a.blob.w1", `${tmp}/worker`).get(
        key,
      );
      assert.deepEqual(await Deno.readFile(`${again}/plugin.js`), files["plugin.js"]);
    } finally {
      host.close();
      worker.close();
      await nats.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

/** Runs openssl with `args` in `dir`; false when it is not installed. */
async function openssl(dir: string, ...args: string[]): Promise<boolean> {
  try {
    const r = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" })
      .output();
    if (!r.success) throw new Error(new TextDecoder().decode(r.stderr));
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

Deno.test({
  ...opts,
  name: "nats: a tls:// URL speaks TLS after the server's INFO, trusting the given CA",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "sausage-tls-" });
    try {
      const made = await openssl(
        dir,
        ..."req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=test-ca"
          .split(" "),
      );
      if (!made) return console.warn("openssl is not installed: TLS not tried");
      await openssl(
        dir,
        ..."req -newkey rsa:2048 -nodes -keyout key.pem -out leaf.csr -subj /CN=localhost".split(
          " ",
        ),
      );
      await Deno.writeTextFile(
        `${dir}/ext.cnf`,
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
      );
      await openssl(
        dir,
        ..."x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 1 -extfile ext.cnf"
          .split(" "),
      );
      const nats = await TestNats.start(users, {
        tls: `tls { cert_file: "${dir}/cert.pem", key_file: "${dir}/key.pem" }`,
      });
      try {
        const u = users.a.host;
        const c = await NatsClient.connect({
          url: `tls://localhost:${nats.port}`,
          user: u.user,
          password: u.password,
          inboxPrefix: "sausage.a.inbox",
          caCerts: [await Deno.readTextFile(`${dir}/ca.pem`)],
        });
        c.subscribe("sausage.a.echo", (m) => c.publish(m.reply!, m.data));
        const r = await c.request("sausage.a.echo", "over tls", 2000);
        assert.equal(new TextDecoder().decode(r.data), "over tls");
        c.close();
        // Without the CA the server is not trusted.
        await assert.rejects(
          NatsClient.connect({
            url: `tls://localhost:${nats.port}`,
            user: u.user,
            password: u.password,
            inboxPrefix: "sausage.a.inbox",
          }, 2000),
          /certificate/i,
        );
      } finally {
        await nats.stop();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Events a `WorkerSet` journals. */
type Events = [string, Record<string, unknown>][];

/**
 * A host's `WorkerSet` and a peer's connection on a new server, for `fn`;
 * all closed after. The peer has the host's credentials: it may speak as
 * any worker (the server keeps real workers to their own subjects).
 */
async function withWorkerSet(
  maxWorkers: number,
  fn: (set: WorkerSet, worker: NatsClient, events: Events) => Promise<void>,
): Promise<void> {
  const nats = await TestNats.start(users);
  const host = await client(nats, "a", "host");
  const worker = await client(nats, "a", "host");
  const events: Events = [];
  const set = new WorkerSet(
    host,
    new Subjects("a"),
    {} as Mount, // no file is served: the world is never read
    (event, fields) => events.push([event, fields]),
    2500,
    maxWorkers,
  );
  try {
    set.start();
    await host.flush(); // the set's subscriptions are live before a worker publishes
    await fn(set, worker, events);
  } finally {
    set.close();
    host.close();
    worker.close();
    await nats.stop();
  }
}

/** A heartbeat of worker `id` (its run `instance`), with `more` fields. */
const beat = (id: string, instance = `i-${id}`, more: Record<string, unknown> = {}) =>
  JSON.stringify({ worker: id, instance, seq: 1, machine: "m", load: 0, slots: 1, ...more });

/** Resolves once `ok()` holds. */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 20));
}

Deno.test({
  ...opts,
  name: "nats: a host takes at most max_workers workers, and says so once",
  fn: () =>
    withWorkerSet(2, async (set, worker, events) => {
      for (const id of ["w1", "w2", "w3", "w4"]) worker.publish(`sausage.a.hb.${id}`, beat(id));
      await until(() => events.some(([e]) => e !== "worker-joined"));
      assert.deepEqual(set.list().map((w) => w.worker), ["w1", "w2"]);
      assert.deepEqual(events.map(([e]) => e), ["worker-joined", "worker-joined", "limit"]);
      assert.equal(events[2][1].limit, "max_workers");
    }),
});

Deno.test({
  ...opts,
  name: "nats: the sandbox protocol in frames; a worker that sends a bad one is dropped",
  fn: () =>
    withWorkerSet(256, async (set, worker, events) => {
      const toWorker: unknown[] = [];
      worker.subscribe("sausage.a.w.w1", (m) => {
        const { lead, rest } = readLead(m.data, (l) => l);
        toWorker.push(lead, ...decodeFrames(rest, checkToWorker, 2 ** 20));
      });
      await worker.flush(); // the subscription is live before the host sends to it
      worker.publish("sausage.a.hb.w1", beat("w1"));
      await until(() => set.list().length === 1);
      const w = set.pick()!;
      const seen: ProcessMessage[] = [];
      for (const pid of ["1", "2"]) {
        w.start({
          op: "run",
          pid,
          dir: "/cache/components/view/abc",
          world: "/the/world",
          env: [],
          memoryLimit: 2 ** 20,
          maxLine: 2 ** 20,
          request: '{"jsonrpc":"2.0","id":1,"method":"x"}',
        }, (m) => seen.push(m));
      }
      await until(() => toWorker.length >= 4);
      // The host's run leads; a worker new to it first drops any file it kept (kept_files.ts);
      // each run names its component by key, `/` is served.
      const [lead, drop, run] = toWorker.slice(-4) as [
        Record<string, unknown>,
        ToWorker,
        RunMessage,
      ];
      assert.equal(lead.op, "host");
      assert.deepEqual(drop, { op: "uncache", keys: [], all: true });
      assert.equal(run.dir, "view.abc");
      assert.equal(run.world, SERVED_WORLD);
      assert.equal(run.request, '{"jsonrpc":"2.0","id":1,"method":"x"}');

      // A good frame is delivered; then one whose status is no number drops the worker.
      const from = (msgs: object[]) =>
        encodeFrames([{ op: "worker", id: "w1", instance: "i-w1" }, ...msgs]);
      worker.publish("sausage.a.host.w1", from([{ op: "out", pid: "1", line: "hello" }]));
      await until(() => seen.length === 1);
      assert.deepEqual(seen[0], { op: "out", pid: "1", line: "hello" });
      worker.publish("sausage.a.host.w1", from([{ op: "exit", pid: "1", status: "no" }]));
      await until(() => seen.length === 3);
      assert.deepEqual(seen.slice(1).map((m) => [m.pid, m.op]), [["1", "exit"], ["2", "exit"]]);
      assert.match(
        (seen[1] as ExitMessage).error!,
        /the worker w1 was lost: .*status is not a number/,
      );
      const lost = events.find(([e]) => e === "worker-lost")!;
      assert.equal(lost[1].processes, 2);
      assert.equal(set.list().length, 0);
      await until(() => toWorker.some((m) => (m as ToWorker).op === "forget"));
    }),
});

Deno.test({
  ...opts,
  name: "nats: placement counts the host's own picks, not a heartbeat sent during a burst",
  fn: () =>
    withWorkerSet(256, async (set, worker) => {
      // w1's last beat came in a burst that has ended since; w2's in a lull.
      worker.publish("sausage.a.hb.w1", beat("w1", "i-w1", { load: 40, slots: 2 }));
      worker.publish("sausage.a.hb.w2", beat("w2", "i-w2", { load: 0, slots: 2 }));
      await until(() => set.list().length === 2);
      const picked: string[] = [];
      for (let i = 0; i < 6; i++) {
        const w = set.pick()!;
        w.picked();
        picked.push(w.worker);
      }
      assert.deepEqual(picked.filter((w) => w === "w1").length, 3, picked.join(" "));
      // `sausage workers` still shows what the worker said it runs.
      assert.deepEqual(set.list().find((w) => w.worker === "w1")!.load, 43);
    }),
});

Deno.test({
  ...opts,
  name: "nats: a worker's own credentials: its subjects only; it cannot hear or speak as another",
  async fn() {
    const nats = await TestNats.start(users);
    const refusals: PermissionRefusal[] = [];
    const u = users.a.workers.w2;
    const w2 = await NatsClient.connect({
      url: nats.url,
      user: u.user,
      password: u.password,
      inboxPrefix: "sausage.a.inbox.w2",
      onPermission: (r) => refusals.push(r),
    });
    const host = await client(nats, "a", "host");
    try {
      const s = new Subjects("a");
      // w2 listens on w1's subject and on every worker's: refused, nothing arrives.
      const stolen = [next(w2, s.worker("w1"), 1000), next(w2, "sausage.a.w.>", 1000)];
      const own = next(w2, s.worker("w2"), 1000);
      const heard: string[] = [];
      for (const sub of [s.heartbeats, s.fromWorkers, s.blobs]) {
        host.subscribe(sub, (m) => heard.push(m.subject));
      }
      await host.flush();
      await new Promise((r) => setTimeout(r, 200));
      host.publish(s.worker("w1"), "w1's run");
      host.publish(s.worker("w2"), "w2's run");
      assert.deepEqual(await Promise.all(stolen), [null, null]);
      assert.equal(new TextDecoder().decode((await own)!.data), "w2's run");
      // Nor may it speak as w1: heartbeats, process messages, fetches.
      for (const subject of [s.heartbeat("w1"), s.toHost("w1"), s.blob("w1")]) {
        w2.publish(subject, "as w1");
      }
      w2.publish(s.heartbeat("w2"), "as itself");
      await until(() => refusals.length >= 5 && heard.length >= 1);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard, [s.heartbeat("w2")]);
      assert.deepEqual(
        refusals.map((r) => `${r.operation} ${r.subject}`).sort(),
        [
          "publish sausage.a.blob.w1",
          "publish sausage.a.host.w1",
          "publish sausage.a.hb.w1",
          "subscription sausage.a.w.>",
          "subscription sausage.a.w.w1",
        ].sort(),
      );
    } finally {
      w2.close();
      host.close();
      await nats.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "nats: the host takes a worker by its subject; a second live run of an id is refused",
  fn: () =>
    withWorkerSet(256, async (set, peer, events) => {
      const leads: Record<string, unknown>[] = [];
      peer.subscribe("sausage.a.w.w1", (m) => leads.push(readLead(m.data, (l) => l).lead as never));
      await peer.flush();
      // A heartbeat that names another worker than its subject's: ignored.
      peer.publish("sausage.a.hb.w1", beat("w2"));
      peer.publish("sausage.a.hb.w1", beat("w1", "first"));
      await until(() => set.list().length === 1);
      assert.deepEqual(set.list().map((w) => w.worker), ["w1"]);
      // Every heartbeat is answered, to its run, with the host's loss time.
      await until(() => leads.some((l) => l.to === "first" && l.ack === 1));
      assert.equal(leads.find((l) => l.ack === 1)!.loss_ms, 2500);
      // A second run with w1's id, while the first lives: refused, journaled once.
      for (let i = 0; i < 3; i++) peer.publish("sausage.a.hb.w1", beat("w1", "second"));
      await until(() => leads.filter((l) => l.to === "second").length === 3);
      for (const l of leads.filter((l) => l.to === "second")) {
        assert.match(l.refused as string, /another worker with the id w1 is live/);
      }
      assert.deepEqual(events.filter(([e]) => e === "worker-refused").length, 1);
      assert.deepEqual(set.list().length, 1);
      // Its messages are not taken as the first's: a bad frame under its run drops nobody.
      const from = (instance: string, msgs: object[]) =>
        encodeFrames([{ op: "worker", id: "w1", instance }, ...msgs]);
      peer.publish("sausage.a.host.w1", from("second", [{ op: "exit", pid: "1", status: "no" }]));
      // Nor a lead that names w1 on another worker's subject.
      peer.publish("sausage.a.host.w2", from("first", [{ op: "exit", pid: "1", status: "no" }]));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(set.list().length, 1);
      assert(!events.some(([e]) => e === "worker-lost"));
      // The first run's own bad frame does drop it.
      peer.publish("sausage.a.host.w1", from("first", [{ op: "exit", pid: "1", status: "no" }]));
      await until(() => events.some(([e]) => e === "worker-lost"));
    }),
});

Deno.test({
  ...opts,
  name: "nats: a silent worker is asked for a heartbeat before it is lost",
  fn: () =>
    withWorkerSet(256, async (set, peer, events) => {
      const leads: Record<string, unknown>[] = [];
      peer.subscribe("sausage.a.w.w1", (m) => leads.push(readLead(m.data, (l) => l).lead as never));
      await peer.flush();
      peer.publish("sausage.a.hb.w1", beat("w1"));
      await until(() => set.list().length === 1);
      // Silent: pinged at 60 % of loss_ms (1.5 s), once.
      await until(() => leads.some((l) => l.ping));
      const pingedAt = Date.now();
      assert.deepEqual(set.list().length, 1);
      // It answers: not lost.
      peer.publish("sausage.a.hb.w1", beat("w1", "i-w1", { seq: 2 }));
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(set.list().length, 1, "lost although it answered the ping");
      assert.deepEqual(leads.filter((l) => l.ping).length, 1);
      // Silent again; a replay of its last beat (no higher count) is no sign of life: lost at
      // loss_ms, after a round trip to the server.
      await new Promise((r) => setTimeout(r, 500));
      peer.publish("sausage.a.hb.w1", beat("w1", "i-w1", { seq: 2 }));
      await until(() => events.some(([e]) => e === "worker-lost"));
      assert(Date.now() - pingedAt >= 2500);
      const lost = events.find(([e]) => e === "worker-lost")![1];
      assert.match(lost.reason as string, /the last #2\), nor an answer to a ping/);
    }),
});
