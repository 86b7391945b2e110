/**
 * The fault suite (issue 15): floods of bad lines on a guest's stdout and on
 * the control socket, crashes of every kind, a SIGKILL of the host in the
 * middle of locked updates, a corpus of hostile paths against every mount,
 * and many concurrent callers with crashes mixed in; races of commands at a
 * world's start, sandboxes killed under load (the pool's bound) and a 20 MB
 * line on MCP over stdio. Real hosts, real
 * components, real SQLite; `deno task soak` runs it ten times larger
 * (`SAUSAGE_SOAK=10`). Each case prints one `fault-suite:` line with its
 * figures; the README's reliability table comes from them.
 */

import { strict as assert } from "node:assert";
import { DatabaseSync } from "node:sqlite";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { random } from "./helpers/seeded.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";
import { ControlServer } from "../core/control/control_server.ts";
import { HELLO } from "../core/control/control_path.ts";
import { WorldClient } from "../core/control/world_client.ts";
import { World } from "../core/world/world.ts";
import { REPLACE_INTERVAL_MS } from "../core/sandboxes/sandbox_pool.ts";
import { parseLine, type Response } from "../rpc/message.ts";
import { mcpInitialize, mcpStdioSession } from "./helpers/mcp.ts";

const probe = await builtTestPlugin("probe");
const fsprobe = await builtTestPlugin("fsprobe");
const SCALE = Number(Deno.env.get("SAUSAGE_SOAK") ?? "1") || 1;
const launcher = new URL("../sausage", import.meta.url).pathname;
const opts = { sanitizeOps: false, sanitizeResources: false };

function report(figures: Record<string, unknown>): void {
  console.log(`fault-suite: ${JSON.stringify(figures)}`);
}

/** One generated bad line and the answer it must get (`null`: none). */
interface Fuzz {
  line: string;
  /** The answer's id and error code, or "text" for a line that is only journaled. */
  expect: { id: string | number | null; code: number } | "text" | null;
}

/**
 * Bad lines of every kind: not JSON, JSON that is not JSON-RPC, batches,
 * ids of the wrong type, params that are not objects, unknown core methods,
 * wrong types in every field of core methods, huge numbers, calls of
 * plugins that do not exist, responses to ids never sent, notifications.
 */
function fuzzLines(n: number, seed: number, host: "guest" | "control"): Fuzz[] {
  const r = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const junk = () =>
    Array.from({ length: 1 + Math.floor(r() * 40) }, () => String.fromCharCode(32 + r() * 95))
      .join("");
  const wrong = () => pick([5, true, null, [], { x: 1 }, "x", -1, 1e308, 2.5]);
  const notString = () => pick([5, true, [], { x: 1 }, -1, 1e308, 2.5]);
  const out: Fuzz[] = [];
  for (let i = 0; out.length < n; i++) {
    const id = `f${i}`;
    const rpc = (m: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", ...m });
    const text = host === "guest" ? "text" : { id: null, code: -32700 };
    switch (Math.floor(r() * 12)) {
      case 0:
        out.push({
          line: pick(["{", "[1,2", '{"jsonrpc": "2.0", "method": ', "}{"]),
          expect: text,
        });
        break;
      case 1:
        out.push({ line: junk(), expect: text });
        break;
      case 2:
        out.push({
          line: pick(['{"a":1}', "[1,2,3]", '"str"', "null", "1e999999", "[]"]),
          expect: text,
        });
        break;
      case 3:
        out.push({
          line: JSON.stringify([{ jsonrpc: "2.0", id, method: "core.log" }]),
          expect: { id: null, code: -32600 },
        });
        break;
      case 4:
        out.push({
          line: rpc({ id: pick([{ x: 1 }, [1], true]), method: "core.log" }),
          expect: { id: null, code: -32600 },
        });
        break;
      case 5:
        out.push({
          line: rpc({ id, method: "core.log", params: pick([[1], "x", 5, true]) }),
          expect: { id, code: -32602 },
        });
        break;
      case 6:
        out.push({
          line: rpc({ id, method: `core.${pick(["nope", "Log", "log2", "__proto__", "$x"])}` }),
          expect: { id, code: -32601 },
        });
        break;
      case 7: {
        const field = pick(["plugin", "pid", "grep", "limit", "since"]);
        out.push({
          line: rpc({ id, method: "core.log", params: { [field]: wrong() } }),
          expect: null, // decided below: some wrong values are right for some fields
        });
        const v = JSON.parse(out[out.length - 1].line).params[field];
        const ok = v === null ||
          (field === "limit" && Number.isInteger(v) && v >= 1 && v <= 10000) ||
          (field === "since" && typeof v === "number") ||
          (["plugin", "pid", "grep"].includes(field) && typeof v === "string");
        if (ok) out.pop();
        else out[out.length - 1].expect = { id, code: -32602 };
        break;
      }
      case 8: {
        const method = pick(["core.lock", "core.unlock", "core.stop", "core.kill", "core.call"]);
        out.push({
          line: rpc({ id, method, params: { [pick(["path", "pid", "method"])]: notString() } }),
          // Locks belong to processes: the control socket's caller gets -32600 first.
          expect: {
            id,
            code: host === "control" && /^core\.(un)?lock$/.test(method) ? -32600 : -32602,
          },
        });
        break;
      }
      case 9:
        out.push({
          line: rpc({
            id: Number.MAX_SAFE_INTEGER - i,
            method: "core.log",
            params: { limit: 1e308 },
          }),
          expect: { id: Number.MAX_SAFE_INTEGER - i, code: -32602 },
        });
        break;
      case 10:
        out.push({
          line: rpc({ id, method: `nope${i % 7}.${pick(["run", "x"])}` }),
          expect: { id, code: -32001 },
        });
        break;
      default:
        out.push({
          line: pick([
            rpc({ id: `never-${i}`, result: 1 }),
            rpc({ id: `never-${i}`, error: { code: 1, message: "x" } }),
          ]),
          // A guest's answer to a call it never had is journaled; the control socket ignores it.
          expect: host === "guest" ? "text" : null,
        });
    }
  }
  return out;
}

/** The responses in a list (a guest's answers), each checked as one. */
function responses(list: unknown): Response[] {
  assert.ok(Array.isArray(list), `a list of answers, not ${JSON.stringify(list)}`);
  return list.map((a) => {
    const parsed = parseLine(JSON.stringify(a));
    assert.equal(parsed.kind, "response", JSON.stringify(a));
    return parsed.kind === "response" ? parsed.msg : assert.fail();
  });
}

/** Checks answers against what the lines expect; returns how many there were. */
function checkAnswers(lines: Fuzz[], answers: Response[]): number {
  const byId = new Map<unknown, number>();
  let nullIds = 0;
  for (const a of answers) {
    if (a.id === null) nullIds++;
    else {
      assert.ok(!byId.has(a.id), `one answer for ${a.id}`);
      byId.set(a.id, a.error?.code ?? 0);
    }
  }
  let wantNull = 0;
  for (const f of lines) {
    if (f.expect === null || f.expect === "text") continue;
    if (f.expect.id === null) wantNull++;
    else {
      assert.equal(byId.get(f.expect.id), f.expect.code, `${f.line} -> ${byId.get(f.expect.id)}`);
    }
  }
  assert.equal(nullIds, wantNull, "answers without an id");
  return answers.length;
}

const wanted = (lines: Fuzz[]) =>
  lines.filter((f) => f.expect !== null && f.expect !== "text").length;

Deno.test(
  { name: "fault suite: bad lines on a guest's stdout are journaled or answered", ...opts },
  async () => {
    const h = await TestHost.start({
      plugins: { probe },
      files: { "config/limits.json": '{"log_lines_per_second": 1000000}' },
    });
    try {
      const n = 10_000 * SCALE;
      const lines = fuzzLines(n, 1, "guest");
      const others = Array.from({ length: 20 }, () => h.call("probe.noop"));
      const r = await h.call("probe.fuzz", {
        lines: lines.map((f) => f.line),
        replies: wanted(lines),
      });
      assert.ok(r.result, JSON.stringify(r.error));
      const answered = checkAnswers(lines, responses(r.result));
      for (const o of await Promise.all(others)) assert.deepEqual(o.result, {});
      const pid = h.host.journal.query({ grep: '"method":"fuzz"', limit: 1 })[0].pid;
      h.host.journal.flush();
      const texts = lines.filter((f) => f.expect === "text").length;
      const journaled = h.host.journal.query({ pid, limit: 10_000 })
        .filter((e) => e.stream === "stdout").length;
      assert.equal(
        journaled,
        Math.min(texts, 10_000),
        "every line that is not JSON-RPC is journaled",
      );
      report({ case: "guest lines", lines: n, answered, journaled: texts, lost: 0 });
    } finally {
      await h.close();
    }
  },
);

/** A greeted raw connection to a control socket. */
async function rawConnection(path: string): Promise<{
  send(text: string): Promise<void>;
  answers: Response[];
  close(): void;
}> {
  const conn = await Deno.connect({ transport: "unix", path });
  const answers: Response[] = [];
  let buf = "";
  (async () => {
    const b = new Uint8Array(65536);
    const dec = new TextDecoder();
    for (;;) {
      const n = await conn.read(b).catch(() => null);
      if (n === null) return;
      buf += dec.decode(b.subarray(0, n), { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        answers.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  const enc = new TextEncoder();
  const send = async (text: string) => {
    const bytes = enc.encode(text);
    let n = 0;
    while (n < bytes.length) n += await conn.write(bytes.subarray(n));
  };
  await send(JSON.stringify({ jsonrpc: "2.0", id: "hello", method: HELLO }) + "\n");
  await eventually(() => answers.length === 1, "the hello answer");
  answers.pop();
  return { send, answers, close: () => conn.close() };
}

Deno.test(
  { name: "fault suite: bad lines on the control socket each get their answer", ...opts },
  async () => {
    const h = await TestHost.start({
      plugins: { probe },
      files: { "config/limits.json": '{"line_mib": 1}' },
    });
    const control = await ControlServer.start(h.host);
    const c = await rawConnection(control.path);
    try {
      const n = 10_000 * SCALE;
      const lines = fuzzLines(n, 2, "control");
      // Over-long lines among them: each dropped with one answer.
      const long = 3;
      for (let i = 0; i < long; i++) {
        lines.splice(Math.floor(lines.length * (i + 1) / (long + 1)), 0, {
          line: "x".repeat(2 ** 20 + 10),
          expect: { id: null, code: -32600 },
        });
      }
      for (let i = 0; i < lines.length; i += 500) {
        await c.send(lines.slice(i, i + 500).map((f) => f.line + "\n").join(""));
      }
      await c.send(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "probe.noop" }) + "\n");
      await eventually(() => c.answers.some((a) => a.id === "last"), "the last answer", 60_000);
      const answers = c.answers.filter((a) => a.id !== "last");
      const answered = checkAnswers(lines, answers);
      assert.equal(answered, lines.filter((f) => f.expect !== null && f.expect !== "text").length);
      report({ case: "control lines", lines: lines.length, answered, lost: 0 });
    } finally {
      c.close();
      await control.close();
      await h.close();
    }
  },
);

Deno.test({
  name: "fault suite: crashes of every kind give -32002, and leave nothing behind",
  ...opts,
}, async () => {
  const h = await TestHost.start({
    plugins: { probe },
    files: { "config/limits.json": '{"memory_mib": 64}' },
  });
  try {
    const crashes: [string, Record<string, unknown>, RegExp, string][] = [
      // A panic's message is the error's message.
      [
        "probe.panic",
        {},
        /^probe was asked to panic \(.* panicked at /,
        "probe was asked to panic",
      ],
      // The code the guest gave to proc_exit, carried past the adapter's ok/err.
      ["probe.exit", { code: 3 }, /exited with status 3/, "exiting with 3"],
      ["probe.exit", { code: 0 }, /exited with status 0/, "exiting with 0"],
      ["probe.hog", { mb: 200 }, /memory limit/, ""],
      [
        "probe.locked",
        { path: "/state/l", then: "panic" },
        /^panicking while holding the lock/,
        "while holding the lock",
      ],
    ];
    let faults = 0;
    for (const [method, params, how, line] of crashes) {
      const r = await h.call(method, params);
      assert.equal(r.error?.code, -32002, `${method}: ${JSON.stringify(r)}`);
      assert.match(r.error!.message, how);
      const data = r.error!.data as { status: unknown; lines: string[] };
      assert.ok("status" in data);
      if (line) assert.ok(data.lines.some((l) => l.includes(line)), JSON.stringify(data.lines));
      faults++;
    }
    // A spinning process, killed; a parent that crashes with an attached child.
    const spin = h.call("probe.spin");
    const spinner = await eventually(
      () => h.host.table.all().find((p) => p.method === "spin"),
      "the spinner",
    );
    assert.deepEqual(await h.result("core.kill", { pid: spinner.pid }), {});
    assert.equal((await spin).error?.code, -32002);
    faults++;
    // A parent killed while its attached child waits: the child gets EOF and ends.
    const parent = h.call("probe.call", { method: "probe.wait_eof", params: {} });
    const child = await eventually(
      () => h.host.table.all().find((p) => p.method === "wait_eof"),
      "the attached child",
    );
    const caller = h.host.table.all().find((p) => p.method === "call")!;
    assert.deepEqual(await h.result("core.kill", { pid: caller.pid }), {});
    assert.equal((await parent).error?.code, -32002);
    await eventually(
      () => h.host.journal.query({ pid: child.pid, grep: "stdin closed" }).length,
      "the child to be stopped",
    );
    faults++;
    // The lock of the crashed holder is free again.
    assert.deepEqual(
      await h.result("probe.locked", { path: "/state/l", then: "unlock" }),
      { jsonrpc: "2.0", id: "q2", result: {} },
    );
    await eventually(() => h.host.table.size === 0, "every process to end");
    const proc = ((await h.host.fs.list("/proc")).entries ?? []).map((e) => e.name);
    assert.deepEqual(proc.filter((n: string) => n !== "core"), [], "no /proc/<pid> left");
    const locks = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/locks.json")),
    );
    assert.deepEqual(locks, { locks: [] }, "no locks left");
    report({ case: "crashes", faults: faults + 1, leaked: 0 });
  } finally {
    await h.close();
  }
});

Deno.test(
  { name: "fault suite: 50 callers, crashes mixed in: no lost answers, no leaks", ...opts },
  async () => {
    const h = await TestHost.start({ plugins: { probe } });
    try {
      const total = 10_000 * SCALE;
      const r = random(3);
      const callers = Array.from({ length: 50 }, (_, i) => WorldClient.of(h.host, `c${i}`));
      let next = 0, answered = 0, crashed = 0;
      await Promise.all(callers.map(async (caller) => {
        while (next < total) {
          next++;
          const crash = r() < 0.1;
          const [method, params] = crash
            ? (r() < 0.5 ? ["probe.panic", {}] : ["probe.exit", { code: 1 }])
            : ["probe.echo", { n: next }];
          const res = await caller.send(method, params);
          if (crash) assert.equal(res.error?.code, -32002, JSON.stringify(res));
          else assert.deepEqual(res.result, params);
          answered++;
          if (crash) crashed++;
        }
      }));
      assert.equal(answered, total);
      await eventually(() => h.host.table.size === 0, "every process to end");
      const proc = ((await h.host.fs.list("/proc")).entries ?? []).map((e) => e.name);
      assert.deepEqual(proc.filter((n: string) => n !== "core"), []);
      report({ case: "concurrent calls", calls: total, callers: 50, crashes: crashed, lost: 0 });
    } finally {
      await h.close();
    }
  },
);

Deno.test({
  name: "fault suite: SIGKILL of the host mid-update loses no acknowledged update",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { probe },
    files: { "state/probe/.keep": "", "state/counter": "0" },
  });
  let acked = 0;
  for (let round = 0; round < SCALE; round++) {
    const host = new Deno.Command(launcher, {
      args: ["run", world, "--headless"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    const client = await eventually(
      () => WorldClient.connect(new World(world)),
      "the host to start",
      30_000,
    );
    // Journal writes and locked read-modify-write updates, until the kill.
    let stop = false;
    const spew = (async () => {
      while (!stop) await client.send("probe.spew", { n: 100 }).catch(() => {});
    })();
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const r = await client.send("probe.incr", {
          path: "/state/counter",
          file: "/state/counter",
        })
          .catch(() => null);
        if (r && "result" in r && r.result !== undefined) acked++;
      }
    });
    await eventually(() => acked >= 100 * (round + 1), "100 acknowledged updates", 120_000);
    host.kill("SIGKILL");
    stop = true;
    await host.status;
    client.close();
    await Promise.all([spew, ...writers]);
  }
  const text = await Deno.readTextFile(`${world}/state/counter`);
  assert.match(text, /^\d+$/, `the counter is whole: ${JSON.stringify(text)}`);
  const value = Number(text);
  assert.ok(value >= acked, `counter ${value} holds every one of ${acked} acknowledged updates`);
  assert.ok(value <= acked + 4 * SCALE, "at most the in-flight updates beyond them");
  // The journal opens without repair and passes SQLite's check.
  const db = new DatabaseSync(`${world}/state/core/journal.sqlite`);
  const check = db.prepare("PRAGMA integrity_check").get() as Record<string, string>;
  db.close();
  assert.equal(Object.values(check)[0], "ok");
  const h = await TestHost.open(world);
  let journaled = 0;
  try {
    assert.equal(h.host.journal.recovered, null, "no repair");
    journaled = h.host.journal.query({ grep: "spew ", limit: 10_000 }).length;
    assert.ok(journaled >= 1000, `journal lines written before the kills: ${journaled}`);
    assert.equal(
      await h.result("probe.incr", { path: "/state/counter", file: "/state/counter" }),
      value + 1,
    );
  } finally {
    await h.close();
  }
  report({ case: "SIGKILL", kills: SCALE, journaled, acknowledged: acked, lost: 0, torn: 0 });
});

/** Hostile paths: escapes by `..`, absolute host paths, links, odd bytes, long names. */
function hostilePaths(outside: string, n: number): string[] {
  const r = random(4);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const bases = [
    "/",
    "/state",
    "/state/fsprobe",
    "/proc",
    "/proc/core",
    "/self",
    "/run",
    "/plugins",
  ];
  const climbs = [
    "..",
    "../..",
    "../../..",
    "./..",
    "//..//..",
    "a/../..",
    "...",
    ".%2e",
    "..\\..",
  ];
  const names = [
    outside.slice(1),
    "secret.txt",
    "etc/passwd",
    "link",
    "link/secret.txt",
    "\u0000x",
  ];
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const kind = i % 4;
    if (kind === 0) out.push(`${pick(bases)}/${pick(climbs)}/${pick(names)}`);
    else if (kind === 1) out.push(`${pick(bases)}/${pick(climbs)}${"/..".repeat(i % 6)}${outside}`);
    else if (kind === 2) out.push(`${pick(bases)}/link${i % 3 ? "/secret.txt" : ""}`);
    else out.push(`${pick(bases)}/${"a".repeat(200 + (i % 300))}/${pick(climbs)}/${pick(names)}`);
  }
  return out;
}

Deno.test({
  name: "fault suite: 1,000 hostile paths against every mount reach nothing outside",
  ...opts,
}, async () => {
  const outside = await Deno.makeTempDir({ prefix: "sausage-outside-" });
  const secret = `secret-${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${outside}/secret.txt`, secret);
  const h = await TestHost.start({
    plugins: { fsprobe },
    files: { "state/fsprobe/.keep": "" },
  });
  try {
    // Links inside the world that point out of it, made on the host side.
    for (const dir of ["", "/state", "/state/fsprobe"]) {
      await Deno.symlink(outside, `${h.root}${dir}/link`).catch(() => {});
    }
    const paths = hostilePaths(`${outside}/secret.txt`, 1000 * SCALE);
    const ops = ["read", "write", "append", "list", "stat", "mkdir", "remove", "rename", "symlink"];
    let tried = 0;
    for (let i = 0; i < paths.length; i += 100) {
      const batch = paths.slice(i, i + 100).flatMap((path) =>
        ops.map((op) => ({
          op,
          path,
          text: "written by a hostile path",
          to: op === "rename" ? `${outside}/moved` : undefined,
          target: op === "symlink" ? `${outside}/secret.txt` : undefined,
        }))
      );
      const r = await h.call("fsprobe.run", { ops: batch });
      assert.ok(r.result, JSON.stringify(r.error));
      assert.ok(!JSON.stringify(r.result).includes(secret), "no read reached the secret");
      tried += batch.length;
    }
    const after = [...Deno.readDirSync(outside)].map((e) => e.name).sort();
    assert.deepEqual(after, ["secret.txt"], "nothing written outside");
    assert.equal(await Deno.readTextFile(`${outside}/secret.txt`), secret);
    report({ case: "hostile paths", paths: paths.length, operations: tried, escapes: 0 });
  } finally {
    await h.close();
    await Deno.remove(outside, { recursive: true });
  }
});

/** The OS processes that are sandboxes of this process's hosts (children running `sandbox/main.ts`). */
function sandboxChildren(): number {
  let n = 0;
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== Deno.pid) continue;
      if (Deno.readTextFileSync(`/proc/${e.name}/cmdline`).includes("sandbox")) n++;
    } catch { /* gone */ }
  }
  return n;
}

Deno.test({
  name: "fault suite: sandboxes killed under load: never more than the pool's bound, no lost call",
  ...opts,
}, async () => {
  const { Host } = await import("../core/host.ts");
  const root = await makeWorld({ plugins: { probe } });
  const host = new Host(root, { sandboxes: 3, watch: false, sdkDir: null });
  try {
    await host.start();
    const bound = host.pool.bound;
    assert.equal(bound, 4, "3 sandboxes and the spare");
    let stop = false, maxPool = 0, maxOs = 0, samples = 0;
    const sampler = (async () => {
      while (!stop) {
        maxPool = Math.max(maxPool, host.pool.count);
        maxOs = Math.max(maxOs, sandboxChildren());
        samples++;
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    let answered = 0, lostSandbox = 0, sent = 0;
    const callers = Array.from({ length: 30 }, async (_, i) => {
      const caller = WorldClient.of(host, `c${i}`);
      while (!stop) {
        sent++;
        const r = await caller.send("probe.echo", { i });
        if (r.error) {
          assert.equal(r.error.code, -32002, JSON.stringify(r.error));
          lostSandbox++;
        }
        answered++;
      }
    });
    // Rounds of killing every live sandbox at once: losses faster than replacements may come.
    let kills = 0;
    const killsBegan = Date.now();
    for (let round = 0; round < 5 * SCALE; round++) {
      await eventually(
        () => host.pool.sandboxes.filter((s) => !s.hasEnded).length === 3,
        "the pool at its size",
        60_000,
      );
      const victims = host.pool.sandboxes.filter((s) => !s.hasEnded);
      for (const sb of victims) {
        try {
          Deno.kill(sb.osPid, "SIGKILL");
          kills++;
        } catch { /* it exited meanwhile */ }
      }
      await Promise.all(victims.map((sb) => sb.ended));
    }
    await eventually(
      () => host.pool.sandboxes.filter((s) => !s.hasEnded).length === 3,
      "the pool back to its size",
      60_000,
    );
    stop = true;
    await Promise.all(callers);
    await sampler;
    assert.equal(answered, sent, "every call answered");
    assert.ok(maxPool <= bound, `at most ${bound} sandboxes in the pool, saw ${maxPool}`);
    assert.ok(maxOs <= bound, `at most ${bound} sandbox subprocesses, saw ${maxOs}`);
    const replaced = host.journal.query({ grep: "sandbox-replaced", limit: 1000 })
      .map((e) => JSON.parse(e.line) as { reason: string; waited_ms: number });
    assert.ok(replaced.length >= 1, "replacements are journaled");
    assert.ok(replaced.every((r) => /a sandbox was lost: it was killed by SIGKILL/.test(r.reason)));
    // Rate-limited: a burst of `bound`, then one per REPLACE_INTERVAL_MS.
    const allowed = bound + Math.ceil((Date.now() - killsBegan) / REPLACE_INTERVAL_MS);
    assert.ok(replaced.length <= allowed, `${replaced.length} replacements, at most ${allowed}`);
    const after = await WorldClient.of(host, "after").send("probe.echo", { a: 1 });
    assert.deepEqual(after.result, { a: 1 }, "the pool serves after the kills");
    report({
      case: "pool bound",
      kills,
      calls: answered,
      sandbox_lost_answers: lostSandbox,
      max_sandboxes: maxOs,
      bound,
      replacements: replaced.length,
      rate_limited: replaced.filter((r) => r.waited_ms > 0).length,
      lost: 0,
      samples,
    });
  } finally {
    await host.shutdown(200);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

/** Runs `sausage <args>` to its end: exit code, stdout, stderr. */
async function sausageRun(...args: string[]) {
  const out = await new Deno.Command(launcher, { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test({
  name: "fault suite: 2 runs and 30 calls racing at start: one host, every update kept",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe }, files: { "state/counter": "0" } });
  const calls = 30 * SCALE;
  const runs = [0, 1].map(() =>
    new Deno.Command(launcher, {
      args: ["run", world, "--headless", "--quiet"],
      stdout: "null",
      stderr: "piped",
    }).spawn()
  );
  const params = JSON.stringify({ path: "/state/counter", file: "/state/counter" });
  const answers = await Promise.all(
    Array.from({ length: calls }, () => sausageRun("call", world, "probe.incr", params)),
  );
  for (const r of answers) assert.equal(r.code, 0, r.stderr);
  const values = answers.map((r) => Number(r.stdout)).sort((a, b) => a - b);
  assert.deepEqual(values, Array.from({ length: calls }, (_, i) => i + 1), "one lock table");
  assert.equal(await Deno.readTextFile(`${world}/state/counter`), String(calls));
  // Exactly one run serves; the other names it and exits 1.
  const refused = await Promise.race(runs.map((p, i) => p.status.then((s) => ({ i, s }))));
  assert.equal(refused.s.code, 1);
  const text = new TextDecoder().decode((await runs[refused.i].output()).stderr);
  assert.match(text, /another host runs .*\(sausage run\) since/);
  const serving = runs[1 - refused.i];
  const r = await sausageRun("call", world, "probe.incr", params);
  assert.equal(r.stdout.trim(), String(calls + 1), "the serving run answers");
  serving.kill("SIGTERM");
  assert.equal((await serving.status).code, 0);
  await serving.stderr.cancel();
  report({ case: "races at start", runs: 2, calls, hosts_serving: 1, counter: calls, lost: 0 });
  await Deno.remove(world, { recursive: true }).catch(() => {});
});

Deno.test({
  name: "fault suite: a 20 MB line on MCP over stdio is answered at once; the session goes on",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const s = mcpStdioSession(launcher, world);
  try {
    await s.send(JSON.stringify(mcpInitialize(1)));
    assert.ok((await s.answer(1)).result);
    const big = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_echo",` +
      `"arguments":{"x":"${"z".repeat(20 * 2 ** 20)}"}}}`;
    const began = performance.now();
    await s.send(big);
    const answer = await s.answer(2) as { error: { code: number; message: string } };
    const ms = Math.round(performance.now() - began);
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.message, /was not read: the limit is \d+ bytes/);
    await s.send('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    assert.deepEqual(await s.answer(3), { jsonrpc: "2.0", id: 3, result: {} });
    report({ case: "MCP stdio 20 MB line", bytes: big.length, answered_ms: ms, lost: 0 });
  } finally {
    await s.close();
    await Deno.remove(world, { recursive: true }).catch(() => {});
  }
});
