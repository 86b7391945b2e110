/**
 * Many processes per sandbox (DECISIONS.md): co-located guests share a
 * thread through time slices, a kill ends only its target, limits refuse
 * bombs, a lost sandbox fails its processes and is replaced, and no sandbox
 * outlives its host. Real components built from Rust source (`probe`), real
 * sandbox subprocesses; the tests' hosts run one sandbox, so every process
 * shares it.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, hostTests, type TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";

const probe = await builtTestPlugin("probe");
const test = hostTests({ plugins: { probe } });

/** Starts a detached process that answers `{pid}` at once (`probe.serve`); resolves with its pid. */
async function detach(h: TestHost, method: string, params = {}): Promise<string> {
  const r = await h.result<{ pid: string }>("core.call", { method, params, detach: true });
  return r.pid;
}

/** Starts a detached process and forgets it (`core.call` as a notification). */
function launch(h: TestHost, method: string, params = {}): void {
  h.client.notify("core.call", { method, params, detach: true });
}

/** The pids of the live processes of a method (the process table, as `ps` shows it). */
function live(h: TestHost, method: string): string[] {
  return h.host.table.all().filter((p) => p.method === method).map((p) => p.pid);
}

test("co-located processes answer while two neighbours spin", async (h) => {
  launch(h, "probe.spin");
  launch(h, "probe.spin");
  const spinners = await eventually(() => {
    const pids = live(h, "spin");
    return pids.length === 2 && pids;
  }, "two spinners");
  for (let i = 0; i < 20; i++) assert.deepEqual(await h.result("probe.echo", { i }), { i });
  assert.equal(h.host.pool.sandboxes.length, 1, "one sandbox runs them all");
  for (const pid of spinners) await h.result("core.kill", { pid });
});

test("a process never sees what an earlier one left in memory (memories are reused, zeroed)", async (h) => {
  const marker = `secret-${crypto.randomUUID()}`;
  for (let round = 0; round < 3; round++) {
    // The scanner works: the leaving process finds its own copies.
    const left = await h.result<{ found: number }>("probe.leave_in_memory", {
      marker,
      copies: 1000,
    });
    assert.ok(left.found >= 1000, `the leaving process saw ${left.found} copies`);
    // The next process in the same sandbox gets a pooled memory, zeroed: only its own key.
    const seen = await h.result<{ found: number }>("probe.find_in_memory", { marker });
    assert.ok(seen.found <= 2, `a later process found ${seen.found} copies of another's data`);
  }
  assert.equal(h.host.pool.sandboxes.length, 1);
});

test("recursion without loops is preempted too", async (h) => {
  const fib = h.call("probe.fib", { n: 38 });
  await eventually(() => live(h, "fib").length === 1, "fib running");
  assert.deepEqual(await h.result("probe.noop"), {}, "a neighbour answers while fib runs");
  assert.equal((await fib).result, 39088169);
});

test("kill of a spinning process leaves its 50 waiting neighbours alive", async (h) => {
  const waiters = await Promise.all(
    Array.from({ length: 50 }, () => detach(h, "probe.serve")),
  );
  const spin = h.call("probe.spin");
  const pid = await eventually(() => live(h, "spin")[0], "the spinner");
  await h.result("core.kill", { pid });
  const r = await spin;
  assert.equal(r.error?.code, -32002);
  assert.match(r.error!.message, /was killed/);
  assert.equal((live(h, "serve")).length, 50, "every neighbour still runs");
  assert.deepEqual(await h.result("probe.noop"), {});
  await Promise.all(waiters.map((pid) => h.result("core.stop", { pid })));
  const ends = await h.result<{ line: string }[]>("core.log", { grep: "stdin closed", limit: 100 });
  assert.equal(ends.length, 50, "each neighbour ended on its own, after EOF");
  assert.equal(h.host.pool.sandboxes.length, 1, "the sandbox was not replaced");
});

test(
  "a guest that grows past the memory limit traps with 'memory limit'",
  async (h) => {
    const r = await h.call("probe.hog", { mb: 200 });
    assert.equal(r.error?.code, -32002);
    assert.match(r.error!.message, /memory limit: .* past 64 MiB/);
    assert.deepEqual(await h.result("probe.noop"), {}, "the sandbox goes on");
  },
  { "config/limits.json": JSON.stringify({ memory_mib: 64 }) },
);

test(
  "a process bomb gets -32004 and a few limit entries with counts, and the host answers other calls",
  async (h) => {
    assert.deepEqual(
      await h.result("probe.bomb", { count: 200, method: "probe.wait_eof", params: {} }),
      { sent: 200 },
    );
    await eventually(() => live(h, "bomb").length === 0, "the bomb ended");
    // Fill what is left (the bomb's own slot may have freed before its last start).
    let refused;
    for (let i = 0; i < 3 && !refused; i++) {
      const r = await h.call("core.call", { method: "probe.serve", params: {}, detach: true });
      if (r.error) refused = r;
    }
    assert.equal(refused?.error?.code, -32004);
    assert.match(refused!.error!.message, /30 live processes.*"processes" in config\/limits\.json/);
    assert.equal(h.host.table.size, 30);
    // Refusals coalesce: one entry per window (1 s) with its count, and every refusal counted.
    const limits = await eventually(
      async () => {
        const l = await h.result<{ line: string }[]>("core.log", {
          grep: '"event":"limit"',
          limit: 1000,
        });
        const refused = l.reduce((n, e) => n + (JSON.parse(e.line) as { count: number }).count, 0);
        return refused >= 171 && l;
      },
      "every refused start counted",
      10_000,
    );
    assert.ok(
      limits.length <= 10,
      `a few limit entries with counts, not one each: ${limits.length}`,
    );
    for (const pid of live(h, "wait_eof")) await h.result("core.stop", { pid });
    for (const pid of live(h, "serve")) await h.result("core.stop", { pid });
    assert.deepEqual(await h.result("probe.noop"), {}, "answers again below the limit");
  },
  { "config/limits.json": JSON.stringify({ processes: 30 }) },
);

test("a crashed sandbox fails its processes with -32002 and is replaced", async (h) => {
  const waiting = h.call("probe.wait_eof");
  await eventually(() => live(h, "wait_eof").length === 1, "the waiter");
  const [sandbox] = h.host.pool.sandboxes;
  Deno.kill(sandbox.osPid, "SIGKILL");
  const r = await waiting;
  assert.equal(r.error?.code, -32002);
  assert.match(r.error!.message, /the sandbox was lost/);
  assert.deepEqual(await h.result("probe.echo", { again: true }), { again: true });
  assert.notEqual(h.host.pool.sandboxes[0], sandbox, "a new sandbox took its place");
});

Deno.test({
  name: "no sandbox outlives a host killed with SIGKILL, even with a guest spinning",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const root = await makeWorld({
      plugins: { probe },
      files: { "config/boot.json": JSON.stringify([{ method: "probe.spin", params: {} }]) },
    });
    const launcher = new URL("../sausage", import.meta.url).pathname;
    const host = new Deno.Command(launcher, {
      args: ["run", root, "--headless"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const children = (): number[] => {
      const out = new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,args="] }).outputSync();
      return new TextDecoder().decode(out.stdout).split("\n")
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f[1] === String(host.pid) && f.slice(2).join(" ").includes("sandbox"))
        .map((f) => Number(f[0]));
    };
    try {
      await eventually(
        async () => {
          const ps = await new Deno.Command(launcher, { args: ["ps", root] }).output();
          return new TextDecoder().decode(ps.stdout).includes("spin") && children().length > 0;
        },
        "the host, its sandboxes and the spinner",
        30_000,
      );
      const sandboxes = children();
      Deno.kill(host.pid, "SIGKILL");
      await host.status;
      const alive = (pid: number) => {
        try {
          return !Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].startsWith("Z");
        } catch {
          return false;
        }
      };
      await eventually(() => sandboxes.every((p) => !alive(p)), "every sandbox gone", 5000);
    } finally {
      try {
        Deno.kill(host.pid, "SIGKILL");
      } catch { /* gone */ }
      await host.stderr.cancel();
      await Deno.remove(root, { recursive: true });
    }
  },
});
