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
import { NatsClient, type NatsMsg } from "../core/remote/nats_client.ts";
import { ComponentShelf } from "../core/remote/component_shelf.ts";
import {
  checkToWorker,
  publishFrames,
  readLead,
  Subjects,
  type ToWorker,
} from "../core/remote/wire.ts";
import { decodeFrames, encodeFrames } from "../sandbox/frames.ts";
import type { ExitMessage, ProcessMessage, RunMessage } from "../sandbox/protocol.ts";
import { SERVED_WORLD } from "../sandbox/preopens.ts";
import { ComponentCopies } from "../worker/component_fetch.ts";
import { natsServerPath, TestNats, worldUsers } from "./helpers/nats.ts";
import { sha256 } from "../core/cache/file_hash.ts";
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

async function client(nats: TestNats, world: "a" | "b", who: "host" | "worker") {
  const u = users[world][who];
  return await NatsClient.connect({
    url: nats.url,
    user: u.user,
    password: u.password,
    inboxPrefix: new Subjects(world).inbox,
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
          user: users.a.worker.user,
          password: "wrong",
          inboxPrefix: "sausage.a.inbox",
        }, 3000),
        /Authorization Violation/,
      );
      const hostB = await client(nats, "b", "host");
      const workerA = await client(nats, "a", "worker");
      const hostA = await client(nats, "a", "host");
      // A's worker subscribes to B's worker subject: the server sends it nothing.
      const stolen = next(workerA, "sausage.b.w.x", 1000);
      const own = next(workerA, "sausage.a.w.x", 1000);
      await new Promise((r) => setTimeout(r, 100));
      hostB.publish("sausage.b.w.x", "for b's worker");
      hostA.publish("sausage.a.w.x", "for a's worker");
      assert.equal(await stolen, null);
      assert.equal(new TextDecoder().decode((await own)!.data), "for a's worker");
      // Nor can it publish as B's worker: B's host hears nothing.
      const heard = next(hostB, "sausage.b.hb", 1000);
      await new Promise((r) => setTimeout(r, 100));
      workerA.publish("sausage.b.hb", '{"worker":"intruder"}');
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
      const lead = { op: "worker" as const, id: "w" };
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
    const worker = await client(nats, "a", "worker");
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
      host.subscribe("sausage.a.blob", (m) => shelf.serve(host, m));
      await host.flush(); // the subscription is live before the worker asks (another connection)
      const copies = new ComponentCopies(worker, "sausage.a.blob", `${tmp}/worker`);
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
      const raw = (req: unknown) => host.request("sausage.a.blob", JSON.stringify(req), 2000);
      for (const file of ["../secret.txt", "secret.txt"]) {
        const r = await raw({ entry: key, file, offset: 0 });
        assert.equal(r.data[0], 1);
      }
      // A copy whose bytes differ from the manifest is not used: fetched again.
      await Deno.writeFile(`${got}/plugin.js`, new TextEncoder().encode("tampered"));
      const again = await new ComponentCopies(worker, "sausage.a.blob", `${tmp}/worker`).get(key);
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

/** A host's `WorkerSet` and a worker's connection on a new server, for `fn`; all closed after. */
async function withWorkerSet(
  maxWorkers: number,
  fn: (set: WorkerSet, worker: NatsClient, events: Events) => Promise<void>,
): Promise<void> {
  const nats = await TestNats.start(users);
  const host = await client(nats, "a", "host");
  const worker = await client(nats, "a", "worker");
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

/** A heartbeat of worker `id`. */
const beat = (id: string) => JSON.stringify({ worker: id, machine: "m", load: 0, slots: 1 });

/** Resolves once `ok()` holds. */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 20));
}

Deno.test({
  ...opts,
  name: "nats: a host takes at most max_workers workers, and says so once",
  fn: () =>
    withWorkerSet(2, async (set, worker, events) => {
      for (const id of ["w1", "w2", "w3", "w4"]) worker.publish("sausage.a.hb", beat(id));
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
      worker.publish("sausage.a.hb", beat("w1"));
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
      await until(() => toWorker.length >= 3);
      // The host's run leads; each run names its component by key, `/` is served.
      const [lead, run] = toWorker.slice(-3) as [Record<string, unknown>, RunMessage];
      assert.equal(lead.op, "host");
      assert.equal(run.dir, "view.abc");
      assert.equal(run.world, SERVED_WORLD);
      assert.equal(run.request, '{"jsonrpc":"2.0","id":1,"method":"x"}');

      // A good frame is delivered; then one whose status is no number drops the worker.
      const from = (msgs: object[]) => encodeFrames([{ op: "worker", id: "w1" }, ...msgs]);
      worker.publish("sausage.a.host", from([{ op: "out", pid: "1", line: "hello" }]));
      await until(() => seen.length === 1);
      assert.deepEqual(seen[0], { op: "out", pid: "1", line: "hello" });
      worker.publish("sausage.a.host", from([{ op: "exit", pid: "1", status: "no" }]));
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
      worker.publish(
        "sausage.a.hb",
        JSON.stringify({ worker: "w1", machine: "m", load: 40, slots: 2 }),
      );
      worker.publish(
        "sausage.a.hb",
        JSON.stringify({ worker: "w2", machine: "m", load: 0, slots: 2 }),
      );
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
