/**
 * A signal to the host's process group (a terminal's Ctrl-C, `timeout`,
 * systemd's default) stops the world as cleanly as one to its pid: the
 * sandboxes and builds are in sessions of their own and do not take it; the
 * host stops its processes, journals `shutdown`, `stop` and `exit`, and
 * removes `state/core/host.json`. A second signal forces a fast exit.
 */

import { strict as assert } from "node:assert";
import { CHECKOUT, launcher, sausage } from "./helpers/cli.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { eventually } from "./helpers/host.ts";
import { readJournal } from "../core/journal/journal.ts";
import { HostLock } from "../core/control/host_lock.ts";
import { World } from "../core/world/world.ts";

const probe = await builtTestPlugin("probe");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** Detached processes each host runs when the signal comes. */
const DETACHED = 3;

/** `sausage run` in a session and process group of its own (its pid is the group's id). */
function spawnInGroup(world: string): Deno.ChildProcess {
  // A child of this process is no group leader, so `setsid` execs in place: same pid.
  return new Deno.Command("setsid", {
    args: [launcher, "run", world, "--headless", "--quiet"],
    cwd: CHECKOUT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** The OS processes whose command line names `world` (the host and its sandboxes). */
function processesOf(world: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      if (cmd.includes(world)) pids.push(Number(e.name));
    } catch { /* gone */ }
  }
  return pids;
}

/** The process group of an OS process. */
function groupOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** The core events of a journal, as `{event, ...}`, and the lifecycle events of its processes. */
function events(
  world: string,
): { core: string[]; stops: number; exits: number; lost: string[] } {
  const entries = readJournal(`${world}/state/core/journal.sqlite`, { limit: 10_000 });
  const core: string[] = [];
  const lost: string[] = [];
  let stops = 0, exits = 0;
  for (const e of entries) {
    if (e.stream !== "core") continue;
    let ev: string | undefined;
    try {
      ev = JSON.parse(e.line).event;
    } catch { /* a plain line */ }
    if (!ev) continue;
    if (e.pid === "core") core.push(ev);
    else if (ev === "stop") stops++;
    else if (ev === "exit") exits++;
    if (e.line.includes("sandbox was lost")) lost.push(e.line);
  }
  return { core, stops, exits, lost };
}

/** Waits until `sausage run` (not a transient host) serves `world`. */
async function served(world: string): Promise<void> {
  await eventually(
    async () => {
      if (HostLock.holder(new World(world))?.command !== "sausage run") return false;
      const r = await sausage("ps", world);
      return r.code === 0 && !r.stderr.includes("no host runs");
    },
    "sausage run to serve",
    60_000,
  );
}

/** Starts `count` detached processes of `method` in the host of `world`; waits until they run. */
async function detached(world: string, count: number, method: string, params = {}) {
  const r = await sausage("call", world, "probe.bomb", JSON.stringify({ count, method, params }));
  assert.equal(r.code, 0, r.stderr);
  const [plugin, name] = method.split(".");
  await eventually(
    async () => {
      const r = await sausage("ps", world, "--json");
      const list = JSON.parse(r.stdout || "[]") as { plugin: string; method: string }[];
      return list.filter((p) => p.plugin === plugin && p.method === name).length >= count;
    },
    `${count} ${method} to run`,
    30_000,
  );
}

/** Starts a host in its own group with {@link DETACHED} sleeping detached processes. */
async function hostWithDetached(): Promise<{ world: string; run: Deno.ChildProcess }> {
  const world = await makeWorld({ plugins: { probe } });
  const run = spawnInGroup(world);
  await served(world);
  await detached(world, DETACHED, "probe.sleep", { ms: 600_000 });
  return { world, run };
}

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  Deno.test({
    name:
      `${signal} to the host's process group stops its processes, journals it and removes host.json`,
    ...opts,
  }, async () => {
    const { world, run } = await hostWithDetached();
    const sandboxes = processesOf(world).filter((p) => p !== run.pid);
    assert.ok(sandboxes.length >= 1, "the host runs sandboxes");
    const groups = sandboxes.map(groupOf);
    Deno.kill(-run.pid, signal);
    const status = await run.status;
    const stderr = new TextDecoder().decode(await new Response(run.stderr).arrayBuffer());
    assert.equal(status.code, 0, `the host exits 0: ${stderr}`);
    const ev = events(world);
    assert.ok(ev.core.includes("shutdown"), `a shutdown event: ${ev.core.join(", ")}\n${stderr}`);
    assert.ok(ev.stops >= DETACHED, `a stop per detached process (${ev.stops})\n${stderr}`);
    assert.ok(ev.exits >= DETACHED + 1, `an exit per process (${ev.exits})\n${stderr}`);
    assert.deepEqual(
      ev.lost,
      [],
      "the processes were stopped by the host, not lost with a sandbox",
    );
    assert.throws(
      () => Deno.statSync(`${world}/state/core/host.json`),
      Deno.errors.NotFound,
      "host.json is removed",
    );
    await eventually(() => processesOf(world).length === 0, "no sandbox left", 10_000);
    groups.forEach((g, i) => {
      assert.notEqual(g, run.pid, `sandbox ${sandboxes[i]} is in a process group of its own`);
    });
  });
}

Deno.test({
  name: "a second signal to the group forces a fast exit while the first one's shutdown waits",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const run = spawnInGroup(world);
  // A process that ignores its stdin's end: a shutdown waits its whole grace period for it.
  await served(world);
  await detached(world, 1, "probe.ignore_eof");
  Deno.kill(-run.pid, "SIGTERM");
  await eventually(() => events(world).core.includes("shutdown"), "the shutdown to begin", 10_000);
  const t0 = performance.now();
  Deno.kill(-run.pid, "SIGTERM");
  const status = await run.status;
  await run.stderr.cancel();
  const ms = performance.now() - t0;
  assert.notEqual(status.code, 0, "a forced exit is not a clean one");
  assert.ok(ms < 4000, `the second signal ended the host in ${ms.toFixed(0)} ms`);
  await eventually(() => processesOf(world).length === 0, "no sandbox left", 10_000);
});
