/**
 * Host calls that cannot hurt neighbours (issue 35): each attack class of
 * the issue, performed by a small preview-1 module placed as a plugin's
 * `plugin.wasm` (`tests/plugins/attacks/`, WebAssembly text), in the one
 * sandbox of the test's host, beside a co-located sleeper (`probe.sleep`,
 * another plugin's process in the same sandbox) and a probe call
 * (`probe.noop`) every 0.5 s. Each case asserts that the attacker gets an
 * errno, a short transfer, -32004 or a trap of its own (its exit status
 * says which: `tests/plugins/attacks/README.md`); that the sleeper answers;
 * that the sandbox is the one it started with; and that the probe's worst
 * wait stays under `SAUSAGE_PROBE_BOUND_MS` (2000 by default: the machines
 * that run this are shared and loaded; the figure is printed, and under
 * 250 ms is the goal on a quiet machine). The fence case checks that no
 * marker of a killed process reaches the next one that takes its memory;
 * the discovery cases that a hostile module in `plugins/` does not take the
 * sandbox down at a host start, and is not run again at the next one. On
 * jco's path (`SAUSAGE_ENGINE=jco`) the same modules run adapted into
 * components (`tests/helpers/attacks.ts`).
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { attackModules, onJco } from "./helpers/attacks.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { loadFactor } from "./helpers/latency.ts";
import { Host } from "../core/host.ts";
import { openTestHost } from "../core/control/world_server.ts";
import { WorldClient } from "../core/control/world_client.ts";
import type { Snapshot } from "../core/activation/graph_keeper.ts";
import { NO_DOCUMENT } from "../core/activation/no_document.ts";
import type { Response } from "../rpc/message.ts";

const probe = await builtTestPlugin("probe");
const attacks = await attackModules([
  "iovec_huge",
  "poll_zeroed",
  "poll_timers",
  "stderr_lines",
  "random_huge",
  "file_write_huge",
  "bulk_loop",
  "big_initial",
  "pending_marker",
  "trap_at_start",
  "spin",
]);

/**
 * The probe's worst wait allowed, in ms: `SAUSAGE_PROBE_BOUND_MS`, else
 * 2000 scaled by the machine's load per core past 4, at most 8000 (at
 * loads of 30-40 on two cores a probe beside a plain spinner waited 1-1.5 s). The goal on a
 * quiet machine is 250 ms; what is under test is that nothing the attacker
 * sizes holds the thread (the stall kill, 10 s, is far above).
 */
function probeBound(): number {
  const set = Deno.env.get("SAUSAGE_PROBE_BOUND_MS");
  if (set) return Number(set);
  // Capped below the stall kill (10 s), which a wait of a guest's making must never come near.
  return Math.min(8000, Math.round(2000 * Math.max(1, loadFactor().factor / 4)));
}
/** How often the probe calls, in ms. */
const PROBE_EVERY_MS = 500;

/** Every case's worst probe wait, printed at the end. */
const worst: Record<string, number> = {};

/** What an attacker's call came to: its exit status, a trap, a kill, or -32004 with the limit. */
interface Outcome {
  status?: number;
  trapped?: boolean;
  killed?: boolean;
  limit?: string;
}

function outcomeOf(r: Response): Outcome {
  assert.ok(r.error, `the attacker answered: ${JSON.stringify(r.result)}`);
  const { code, message, data } = r.error!;
  if (code === -32004) return { limit: (data as { limit?: string })?.limit };
  assert.equal(code, -32002, message);
  const status = message.match(/exited with status (\d+)/);
  if (status) return { status: Number(status[1]) };
  if (/was killed/.test(message)) return { killed: true };
  assert.match(message, /trapped/);
  return { trapped: true };
}

/** An errno, a short transfer, or a trap of its own (see the attack modules' README). */
function errnoShortOrTrap(o: Outcome, what: string): void {
  assert.ok(
    o.trapped ||
      (o.status !== undefined && ((o.status >= 1 && o.status <= 76) || o.status === 100)),
    `${what}: ${JSON.stringify(o)}`,
  );
}

/**
 * On jco's path the preview-1 adapter turns one huge call into many small
 * host calls in its own (preempted) code: 4 KiB writes for a stderr write,
 * a pollable per subscription for `poll_oneoff`. The attack is then a
 * guest that runs long, like a spinner: still running at the window's end
 * (`killed` by the test) is its outcome too; the probe's bound holds as for
 * any other.
 */
function orSpinningOnJco(check: (o: Outcome) => void): (o: Outcome) => void {
  return (o) => {
    if (onJco() && o.killed) return;
    check(o);
  };
}

/** The pids of the live processes of `plugin`. */
function live(h: TestHost, plugin: string): string[] {
  return h.host.table.all().filter((p) => p.plugin === plugin).map((p) => p.pid);
}

/** Calls `probe.noop` every {@link PROBE_EVERY_MS} until `done` says so; the waits (ms). */
async function probing(h: TestHost, done: () => boolean, atLeast: number): Promise<number[]> {
  const waits: number[] = [];
  while (waits.length < atLeast || !done()) {
    const t = performance.now();
    const r = await h.call("probe.noop");
    waits.push(performance.now() - t);
    assert.deepEqual(r.result, {}, `probe ${waits.length} got ${JSON.stringify(r.error)}`);
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return waits;
}

/** The sandbox of a host with one, and that no process lost it. */
async function sameSandbox(h: TestHost, sandbox: unknown): Promise<void> {
  assert.equal(h.host.pool.sandboxes[0], sandbox, "the sandbox was never replaced");
  const lost = await h.result<unknown[]>("core.log", { grep: "sandbox was lost", limit: 10 });
  assert.deepEqual(lost, [], "no process lost its sandbox");
}

/** One attack case: what it runs and what its attacker may get. */
interface Attack {
  /** The attack module (also the plugin's name). */
  module: string;
  /** Extra `config/limits.json` fields. */
  limits?: Record<string, number>;
  /** How long the attack may run before the test ends it (ms; default 15 s). */
  windowMs?: number;
  /** Checks the attacker's outcome (a kill by the test at the window's end is `killed`). */
  expect(o: Outcome): void;
}

/**
 * Runs `attack` beside a sleeper and the probe; asserts the bounds; ends
 * the attacker at the window's end if it still runs.
 */
async function underAttack(name: string, attack: Attack): Promise<void> {
  const windowMs = attack.windowMs ?? 15_000;
  const h = await TestHost.start({
    plugins: { probe, [attack.module]: attacks[attack.module] },
    files: {
      "config/limits.json": JSON.stringify({ call_timeout_ms: 120_000, ...attack.limits }),
    },
  });
  try {
    await h.result("probe.noop"); // the sandbox is up, the probe compiled
    const [sandbox] = h.host.pool.sandboxes;
    const sleepMs = windowMs + 3000;
    const sleeper = h.call("probe.sleep", { ms: sleepMs });
    let ended = false;
    const attacker = h.call(`${attack.module}.run`).finally(() => (ended = true));
    const began = loadFactor();
    const until = Date.now() + windowMs;
    const waits = await probing(h, () => ended || Date.now() > until, 4);
    if (!ended) {
      for (const pid of live(h, attack.module)) await h.call("core.kill", { pid });
    }
    const outcome = outcomeOf(await attacker);
    const slept = await sleeper;
    assert.deepEqual(slept.result, { slept: sleepMs }, `the sleeper: ${JSON.stringify(slept)}`);
    await sameSandbox(h, sandbox);
    const max = Math.max(...waits);
    worst[name] = max;
    const summary = `${name}: ${JSON.stringify(outcome)}, probes ${
      waits.map(Math.round).join(" ")
    } ms, worst wait ${max.toFixed(1)} ms (load ${began.load}${onJco() ? ", jco" : ""})`;
    console.log(summary);
    attack.expect(outcome);
    const bound = probeBound();
    assert.ok(max < bound, `${summary}: past the bound, ${bound} ms (SAUSAGE_PROBE_BOUND_MS)`);
  } finally {
    await h.close();
  }
}

/** A test of one attack. */
function attackTest(name: string, attack: Attack): void {
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => underAttack(name, attack),
  });
}

attackTest(
  "the baseline: a plain spinner, preempted (what any preempted guest makes neighbours wait)",
  {
    module: "spin",
    windowMs: 8000,
    expect: (o) => assert.ok(o.killed, JSON.stringify(o)),
  },
);

attackTest("fd_write of two 0xFFFFFFF0-byte iovecs from a 1-page module: an errno or a trap", {
  module: "iovec_huge",
  expect: (o) => errnoShortOrTrap(o, "iovec_huge"),
});

attackTest(
  "poll_oneoff over 2.7 million zeroed subscriptions: refused (ENOMEM, as wasmtime) past the bound",
  {
    module: "poll_zeroed",
    expect: orSpinningOnJco((o) => errnoShortOrTrap(o, "poll_zeroed")),
  },
);

attackTest("poll_oneoff of 341,000 60-second timers: refused past the bound, one timer at most", {
  module: "poll_timers",
  expect: (o) => errnoShortOrTrap(o, "poll_timers"),
});

attackTest("fd_write of 64 MiB of lines to stderr: sent in batches, or short", {
  module: "stderr_lines",
  // Every line may be sent (in batches, within the output window), or the write is short.
  expect: orSpinningOnJco((o) =>
    assert.ok(o.status === 0 || o.trapped || o.status! > 0, JSON.stringify(o))
  ),
});

attackTest("40 random_get of 250 MiB: filled in slices (the test may end it first)", {
  module: "random_huge",
  expect: (o) => assert.ok(o.status === 0 || o.killed || o.trapped, JSON.stringify(o)),
});

attackTest("fd_write of 250 MiB to a file: written in chunks, or short, or an errno", {
  module: "file_write_huge",
  expect: orSpinningOnJco((o) => assert.ok(o.status !== undefined || o.trapped, JSON.stringify(o))),
});

attackTest(
  "a memory.fill/memory.copy loop over 192 MiB: neighbours wait no more than beside any preempted guest",
  {
    module: "bulk_loop",
    // 60 rounds of ~600 MiB of bulk work: done, or ended by the test at the window's end.
    expect: (o) => assert.ok(o.status === 0 || o.killed, JSON.stringify(o)),
  },
);

Deno.test({
  name:
    "modules of 250 MiB of initial memory: counted against world_memory_mib and memory_mib (-32004)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const h = await TestHost.start({
      plugins: { probe, big: attacks.big_initial },
      files: { "config/limits.json": JSON.stringify({ world_memory_mib: 1024 }) },
    });
    try {
      await h.result("probe.noop");
      const [sandbox] = h.host.pool.sandboxes;
      const sleeper = h.call("probe.sleep", { ms: 8000 });
      // Eight at once: 2,000 MiB declared against 1,024 MiB of the world (one sandbox).
      let ended = 0;
      const calls = Array.from({ length: 8 }, () => h.call("big.run").finally(() => ended++));
      const waits = await probing(h, () => ended === 8, 4);
      const outcomes = (await Promise.all(calls)).map(outcomeOf);
      const refused = outcomes.filter((o) => o.limit === "world_memory_mib").length;
      const ran = outcomes.filter((o) => o.status === 0).length;
      const max = Math.max(...waits);
      worst["initial memory"] = max;
      console.log(
        `initial memory: ${ran} ran, ${refused} refused (world_memory_mib), worst wait ${
          max.toFixed(1)
        } ms`,
      );
      assert.equal(ran + refused, 8, JSON.stringify(outcomes));
      assert.ok(ran <= 4, `${ran} of 250 MiB ran at once within 1,024 MiB`);
      assert.ok(refused >= 4, `${refused} refused`);
      assert.deepEqual((await sleeper).result, { slept: 8000 });
      await sameSandbox(h, sandbox);
      assert.ok(max < probeBound(), `worst wait ${max} ms`);
      // The memory came back: one more runs now.
      assert.equal(outcomeOf(await h.call("big.run")).status, 0);
    } finally {
      await h.close();
    }
    const small = await TestHost.start({
      plugins: { big: attacks.big_initial },
      files: { "config/limits.json": JSON.stringify({ memory_mib: 64 }) },
    });
    try {
      const r = await small.call("big.run");
      assert.equal(r.error?.code, -32004, JSON.stringify(r));
      assert.deepEqual(
        {
          limit: (r.error?.data as Outcome).limit,
          value: (r.error?.data as { value: number }).value,
        },
        { limit: "memory_mib", value: 64 },
      );
      assert.match(r.error!.message, /initial memory limit: a module declares 250 MiB/);
    } finally {
      await small.close();
    }
  },
});

Deno.test({
  name:
    "a process killed while its poll_oneoff is pending writes nothing into the next process's memory",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const h = await TestHost.start({ plugins: { probe, marker: attacks.pending_marker } });
    try {
      await h.result("probe.noop");
      const [sandbox] = h.host.pool.sandboxes;
      const sleeper = h.call("probe.sleep", { ms: 3000 });
      for (let round = 1; round <= 3; round++) {
        // Its 1.5 s timer is pending; killed after 300 ms, its memory goes back to the pool.
        const plant = h.call("marker.plant");
        const pid = await eventually(() => live(h, "marker")[0], "the plant running", 30_000);
        await new Promise((r) => setTimeout(r, 300));
        await h.call("core.kill", { pid });
        assert.ok(outcomeOf(await plant).killed);
        // The next process of the same size takes that memory, and looks after the timer.
        const scan = outcomeOf(await h.call("marker.scan"));
        assert.equal(
          scan.status,
          0,
          `round ${round}: the marker crossed (${JSON.stringify(scan)})`,
        );
      }
      await sleeper;
      await sameSandbox(h, sandbox);
    } finally {
      await h.close();
    }
  },
});

/** Opens a host on `root` with discovery at start (watch), its report lines kept. */
async function discoveringHost(root: string, lines: string[]): Promise<Host> {
  const host = new Host(root, {
    sandboxes: 1,
    watch: true,
    openTestHost,
    report: (l) => lines.push(l),
  });
  await host.start();
  return host;
}

/** The plugins whose discovery ended: failed, or without a document (`x-sausage-no-document`). */
function outcomes(snapshot: Snapshot): string[] {
  return [...snapshot.docs.keys()].filter((name) =>
    snapshot.errors.has(name) || NO_DOCUMENT in (snapshot.docs.get(name) ?? {})
  ).sort();
}

/** The `rpc.discover` processes started in the world so far, by the journal. */
function discoverStarts(host: Host): number {
  return host.journal.query({ grep: '"method":"rpc.discover"', limit: 1000 })
    .filter((e) => e.line.includes('"event":"start"')).length;
}

/**
 * Hostile modules in `plugins/` at a host start: each one's discovery runs
 * beside the others' and the probe's; the sandbox stays; each failure is
 * said once; the next host start runs none of them again.
 */
async function discoveryAtStart(
  modules: Record<string, string>,
  /** Every discovery ends within the core's 10 s (else only the sandbox and the probe are checked). */
  quick = true,
): Promise<void> {
  const root = await makeWorld({ plugins: { probe, ...modules } });
  const lines: string[] = [];
  let host = await discoveringHost(root, lines);
  try {
    const [sandbox] = host.pool.sandboxes;
    const names = [...Object.keys(modules), "probe"];
    // Every discovery ends (none of these answers a document) while the probe answers.
    const client = WorldClient.of(host, "console");
    let snapshot: Snapshot | undefined;
    const all = host.graph.snapshot().then((s) => (snapshot = s));
    const waits: number[] = [];
    while (!snapshot) {
      const t = performance.now();
      const r = await client.send("probe.noop", {});
      waits.push(performance.now() - t);
      assert.deepEqual(r.result, {}, JSON.stringify(r.error));
      await Promise.race([all, new Promise((r) => setTimeout(r, PROBE_EVERY_MS))]);
    }
    // The first answer waits for the host's start (the sandbox's process, the probe's
    // compile), as in the attack cases before their probing; it is said, not bounded.
    const [first, ...probed] = waits;
    const max = Math.max(...probed);
    worst[`discovery of ${Object.keys(modules).length}`] = max;
    const said = `first answer ${Math.round(first)} ms, then probes ${
      probed.map(Math.round).join(" ")
    } ms (load ${loadFactor().load})`;
    console.log(`discovery of ${Object.keys(modules).length}: ${said}`);
    assert.ok(probed.length >= 2, `the discoveries ended before the probe ran twice: ${said}`);
    assert.ok(max < probeBound(), `worst wait ${max.toFixed(1)} ms: ${said}`);
    assert.equal(host.pool.sandboxes[0], sandbox, "the sandbox was never replaced");
    // Each discovery ended: a failure, or (a module that ends 0 without an answer)
    // a plugin without a document (issue 41).
    const failed = [...snapshot.errors.keys()].sort();
    assert.deepEqual(outcomes(snapshot), names.sort());
    for (const [name, error] of snapshot.errors) {
      assert.doesNotMatch(error, /sandbox was lost/, `${name}: ${error}`);
      if (quick) assert.doesNotMatch(error, /did not answer within/, `${name}: ${error}`);
    }
    if (!quick) return;
    // Each plugin's failure said once (plugins of the same file share one discovery).
    const saidOf = (name: string) =>
      lines.filter((l) => l.startsWith(`sausage: ${name} has no methods`));
    for (const name of failed) assert.equal(saidOf(name).length, 1, `${name}: ${lines.join("\n")}`);
    const before = discoverStarts(host);
    assert.ok(before >= 2, `${before} discoveries ran`);
    await host.shutdown(200);
    lines.length = 0;
    host = await discoveringHost(root, lines);
    // The graph at the next start: from the kept outcomes, no process run.
    const again = await host.graph.snapshot();
    assert.deepEqual([...again.errors.keys()].sort(), failed);
    assert.deepEqual(outcomes(again), names.sort());
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(discoverStarts(host), before, "a host start runs no discovery again");
    for (const name of failed) {
      assert.ok(
        saidOf(name).length === 1 && /first run/.test(saidOf(name)[0]),
        `${name} said again from what was kept: ${lines.join("\n")}`,
      );
    }
  } finally {
    await host.shutdown(200);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "hostile modules in plugins/ do not take the sandbox down at a host start, and are not run again at the next",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    discoveryAtStart({
      big1: attacks.big_initial,
      big2: attacks.big_initial,
      trap: attacks.trap_at_start,
    }),
});

Deno.test({
  name: "every attack module in plugins/ at a host start: the sandbox stays",
  sanitizeOps: false,
  sanitizeResources: false,
  // A loop of bulk work or of random_get may outlast the core's 10 s for a discovery under load.
  fn: () => discoveryAtStart(attacks, false),
});

Deno.test("the probe's worst waits", () => {
  console.log(
    `worst probe waits (ms, bound now ${probeBound()}, load ${loadFactor().load}): ${
      JSON.stringify(Object.fromEntries(Object.entries(worst).map(([k, v]) => [k, Math.round(v)])))
    }`,
  );
});
