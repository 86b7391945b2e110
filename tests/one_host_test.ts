/**
 * One host per world (`core/control/host_lock.ts`, `core/control/world_client.ts`): commands
 * that start together go through one host; a second `sausage run` says who
 * holds the world; a killed host's lock and socket are taken over; the
 * control server never removes a socket that something serves.
 */

import { strict as assert } from "node:assert";
import { CHECKOUT, launcher, sausage } from "./helpers/cli.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { eventually } from "./helpers/host.ts";
import { Host } from "../core/host.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { HOST_LOCK_FILE, HostLock, WorldLockedError } from "../core/control/host_lock.ts";
import { controlSocketPath, ensurePrivateDir, runtimeDir } from "../core/control/control_path.ts";
import { World } from "../core/world/world.ts";

const probe = await builtTestPlugin("probe");
const opts = { sanitizeOps: false, sanitizeResources: false };
const INCR = JSON.stringify({ path: "/state/counter", file: "/state/counter" });

function spawnRun(world: string): Deno.ChildProcess {
  return new Deno.Command(launcher, {
    args: ["run", world, "--headless", "--quiet"],
    cwd: CHECKOUT,
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

async function stderrOf(p: Deno.ChildProcess): Promise<string> {
  return new TextDecoder().decode((await p.output()).stderr);
}

/** True when a host answers the world's control socket. */
async function serving(world: string): Promise<boolean> {
  const r = await sausage("ps", world);
  return r.code === 0 && !r.stderr.includes("no host runs");
}

/** Fires `n` `sausage call … probe.incr` at once; resolves with their answers. */
async function incrCalls(world: string, n: number): Promise<number[]> {
  const runs = await Promise.all(
    Array.from({ length: n }, () => sausage("call", world, "probe.incr", INCR)),
  );
  for (const r of runs) assert.equal(r.code, 0, `a call failed: ${r.stderr}`);
  return runs.map((r) => Number(r.stdout));
}

Deno.test({
  name: "40 calls fired while `sausage run` starts go through one host: the counter ends at 40",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe }, files: { "state/counter": "0" } });
  const run = spawnRun(world);
  const answers = await incrCalls(world, 40);
  assert.equal(await Deno.readTextFile(`${world}/state/counter`), "40");
  // Each read-modify-write saw the one before it: one lock table, one host.
  assert.deepEqual(answers.sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
  // `sausage run` serves the world now (it waited for any transient host).
  await eventually(
    async () =>
      HostLock.holder(new World(world))?.command === "sausage run" && await serving(world),
    "sausage run to serve",
    30_000,
  );
  const holder = HostLock.holder(new World(world));
  assert.equal(holder?.command, "sausage run");
  run.kill("SIGTERM");
  const text = await stderrOf(run);
  assert.doesNotMatch(text, /another host/, text);
});

Deno.test({
  name: "two `sausage run` started together: exactly one serves, the other names the holder",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const runs = [spawnRun(world), spawnRun(world)];
  const first = await Promise.race(runs.map((p, i) => p.status.then((s) => ({ i, s }))));
  assert.notEqual(first.s.code, 0, "the second run exits non-zero");
  const refused = await stderrOf(runs[first.i]);
  assert.match(
    refused,
    /another host runs .*: pid \d+ \(sausage run\) since \d{4}-\d\d-\d\dT/,
    refused,
  );
  const serving = runs[1 - first.i];
  const r = await sausage("call", world, "probe.echo", '{"x": 1}');
  assert.equal(r.code, 0, r.stderr);
  const holder = HostLock.holder(new World(world))!;
  assert.match(refused, new RegExp(`pid ${holder.pid} `), "the refusal names the serving host");
  serving.kill("SIGTERM");
  assert.equal((await serving.status).code, 0);
  await serving.stderr.cancel();
});

Deno.test({
  name: "a host killed with SIGKILL: its lock and stale socket are taken over",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe }, files: { "state/counter": "0" } });
  const run = spawnRun(world);
  await eventually(
    async () => {
      const r = await sausage("call", world, "probe.incr", INCR);
      return r.code === 0 && HostLock.holder(new World(world))?.command === "sausage run" &&
        await serving(world);
    },
    "sausage run to serve",
    30_000,
  );
  const before = Number(await Deno.readTextFile(`${world}/state/counter`));
  run.kill("SIGKILL");
  await run.status;
  await run.stderr.cancel();
  const socket = await controlSocketPath(new World(world).root);
  assert.ok(HostLock.holder(new World(world))?.pid, "the killed host left its lock file");
  assert.ok((await Deno.lstat(socket)).isSocket, "the killed host left its socket file");
  // A transient host takes the world over, then a lasting one.
  assert.deepEqual(await incrCalls(world, 1), [before + 1]);
  const again = spawnRun(world);
  await eventually(
    async () =>
      HostLock.holder(new World(world))?.command === "sausage run" && await serving(world),
    "the second run to serve",
    30_000,
  );
  assert.deepEqual(
    await incrCalls(world, 3).then((a) => a.sort()),
    [before + 2, before + 3, before + 4],
  );
  again.kill("SIGTERM");
  assert.equal((await again.status).code, 0);
  await again.stderr.cancel();
});

Deno.test({
  name: "a second host on a locked world is refused; the control server leaves a live socket alone",
  ...opts,
}, async () => {
  const root = await makeWorld({});
  const a = new Host(root, { sandboxes: 1, watch: false, sdkDir: null, command: "test a" });
  try {
    assert.throws(
      () => new Host(root, { sandboxes: 1, watch: false, sdkDir: null }),
      (e) =>
        e instanceof WorldLockedError && e.holder?.pid === Deno.pid &&
        e.holder.command === "test a" && /another host runs/.test(e.message),
    );
  } finally {
    await a.shutdown(0);
  }
  assert.equal(await Deno.readTextFile(`${root}/${HOST_LOCK_FILE}`), "", "released, emptied");
  // The lock is free again: a new host takes it.
  const b = new Host(root, { sandboxes: 1, watch: false, sdkDir: null });
  // Something else listens on the world's socket path: it is neither removed nor replaced.
  ensurePrivateDir(runtimeDir());
  const path = await controlSocketPath(new World(root).root);
  await Deno.remove(path).catch(() => {});
  const squatter = Deno.listen({ transport: "unix", path });
  try {
    await assert.rejects(ControlServer.start(b), /serves the control socket/);
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
  } finally {
    squatter.close();
    await b.shutdown(0);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "a shutdown called twice: the second resolves with the first, when the lock is free",
  ...opts,
}, async () => {
  const root = await makeWorld({ plugins: { probe } });
  const a = new Host(root, { sandboxes: 1, watch: false, sdkDir: null });
  await a.start();
  const first = a.shutdown(200);
  await a.shutdown(200); // a signal's shutdown beside the command's own
  // Resolved only once the world's lock went: a new host takes it at once.
  const b = new Host(root, { sandboxes: 1, watch: false, sdkDir: null });
  await first;
  await b.shutdown(0);
  await Deno.remove(root, { recursive: true });
});

/** A process of its own that locks the world's lock file, names nobody in it, and holds it `ms`. */
async function silentHolder(root: string, ms: number): Promise<Deno.ChildProcess> {
  const code = `const f = Deno.openSync(${JSON.stringify(`${root}/${HOST_LOCK_FILE}`)}, ` +
    `{ read: true, write: true, create: true }); f.lockSync(true); f.truncateSync(0); ` +
    `console.log("locked"); await new Promise((r) => setTimeout(r, ${ms}));`;
  const p = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "piped" }).spawn();
  const reader = p.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /locked/);
  reader.releaseLock();
  return p;
}

Deno.test({
  name: "a lock whose file names nobody is waited for a moment (a release in flight), then refused",
  ...opts,
}, async () => {
  const root = await makeWorld({});
  try {
    new Host(root, { sdkDir: null }).shutdown(0).catch(() => {}); // makes state/core
    await eventually(
      async () => (await Deno.readTextFile(`${root}/${HOST_LOCK_FILE}`)) === "",
      "free",
    );
    // Released 300 ms later: the host waits for it instead of naming nobody.
    const brief = await silentHolder(root, 300);
    const started = Date.now();
    const a = new Host(root, { sandboxes: 1, watch: false, sdkDir: null });
    assert.ok(Date.now() - started >= 100, "it waited for the release");
    await a.shutdown(0);
    await brief.stdout.cancel();
    await brief.status;
    // Held for good by a process that never says who it is: refused after the moment.
    const stuck = await silentHolder(root, 5000);
    try {
      assert.throws(
        () => new Host(root, { sandboxes: 1, watch: false, sdkDir: null }),
        (e) => e instanceof WorldLockedError && e.holder === null && /does not say/.test(e.message),
      );
    } finally {
      stuck.kill();
      await stuck.stdout.cancel();
      await stuck.status;
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
