/**
 * The two engines side by side: every test plugin whose main module takes
 * our preview-1 binding (probe, fsprobe, hostile, talker, mcpprobe, iface;
 * net imports WASI 0.2 sockets and stays on jco's path) runs the same calls on a world of its own through a
 * real host on each engine (`SAUSAGE_ENGINE=jco`, and the binding), and the
 * answers, the notifications, the files the calls leave in the world and
 * how each process ended must be the same. Exit codes are compared as success or failure: jco's
 * adapter carries only ok/err (`proc_exit(3)` arrives as 1), ours the code.
 * Also: a raw preview-1 plugin answers 5 MB and writes and reads 5 MB files
 * on the binding.
 *
 * @module
 */

import { strict as nodeAssert } from "node:assert";

const assert: (ok: unknown, message?: string) => asserts ok = nodeAssert;
import { builtTestPlugin } from "./helpers/plugins.ts";
import { TestHost } from "./helpers/host.ts";

/** One call of a plugin's script. */
type Call = [method: string, params: Record<string, unknown>];

const big = "x".repeat(1 << 20);

const SCRIPTS: Record<string, Call[]> = {
  probe: [
    ["noop", {}],
    ["echo", { a: [1, 2, { b: "c" }], big }],
    ["write_file", { path: "/out.txt", text: "hello\nworld" }],
    ["read_file", { path: "/out.txt" }],
    ["read_file", { path: "/missing.txt" }],
    ["write_file", { path: "/state/big.txt", text: big }],
    ["error", { why: 1 }],
    ["exit", { code: 3 }],
    ["panic", {}],
    ["fib", { n: 20 }],
    ["count", { n: 100000 }],
    ["sleep", { ms: 5 }],
    ["spew", { n: 3, len: 20 }],
  ],
  hostile: [["clobber_core", {}], ["make_links", {}], ["mark", {}]],
  talker: [["chat", { text: "hi", step_ms: 1 }]],
  mcpprobe: [["rpc.discover", {}], ["progress", {}], ["fail", {}]],
  iface: [["rpc.discover", {}], ["version", {}]],
  fsprobe: [
    ["run", {
      ops: [
        { op: "mkdir_all", path: "/d/e/f" },
        { op: "write", path: "/d/a.txt", text: "one" },
        { op: "append", path: "/d/a.txt", text: "two" },
        { op: "create_new", path: "/d/a.txt", text: "again" },
        { op: "create_new", path: "/d/b.txt", text: "bee" },
        { op: "read", path: "/d/a.txt" },
        { op: "list", path: "/d" },
        { op: "rename", from: "/d/b.txt", to: "/d/e/c.txt" },
        { op: "truncate", path: "/d/a.txt", len: 2 },
        { op: "seek_write", path: "/d/a.txt", offset: 4, text: "z" },
        { op: "seek_read", path: "/d/a.txt", offset: 1, len: 10 },
        { op: "symlink", target: "a.txt", path: "/d/link" },
        { op: "readlink", path: "/d/link" },
        { op: "exists", path: "/d/link" },
        { op: "exists", path: "/nope" },
        { op: "rmdir", path: "/d/e" },
        { op: "remove", path: "/d/e/c.txt" },
        { op: "rmdir", path: "/d/e/f" },
        { op: "list", path: "/d/e" },
        { op: "read", path: "/../etc/passwd" },
        { op: "list", path: "/proc" },
        { op: "write", path: "/proc/x", text: "no" },
      ],
    }],
  ],
};

/** What one engine did with a script: answers, exits and the world's files afterwards. */
interface Outcome {
  answers: unknown[];
  exits: string[];
  files: Record<string, string>;
  engines: string[];
  /** The notifications the caller got. */
  notes?: unknown[];
  /** How the binding reported `exit {code}` (the code itself, which jco cannot carry). */
  exitCode?: string;
}

/** A value as JSON with pids made alike (`<plugin>-<uuid>` → `<pid>`), cut to 300 characters. */
function normal(v: unknown): string {
  const json = JSON.stringify(v).replace(/(?<![a-z])[a-z]+-[0-9a-f]{8}-[0-9a-f-]{27}/g, "<pid>");
  return json.length > 300 ? `${json.slice(0, 300)}… (${json.length}, #${hashOf(json)})` : json;
}

/** A short hash of a long string, so that two long values differ where their ends differ. */
function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) >>> 0;
  return h;
}

/** Runs `calls` of `plugin` through a host on `engine` and records what happened. */
async function outcome(plugin: string, wasm: string, engine: "p1" | "jco", calls: Call[]) {
  Deno.env.set("SAUSAGE_ENGINE", engine);
  const t = await TestHost.start({ plugins: { [plugin]: wasm } });
  try {
    const out: Outcome = { answers: [], exits: [], files: {}, engines: [] };
    for (const [method, params] of calls) {
      const r = await t.call(`${plugin}.${method}`, params);
      // jco's adapter carries ok/err only: a failure status is compared as a failure.
      const message = r.error?.message.replace(/status [1-9][0-9]*/, "status <failure>");
      out.answers.push(r.error ? { error: r.error.code, message } : r.result);
      if (engine === "p1" && method === "exit") out.exitCode = r.error?.message;
    }
    const log = await t.result<{ line: string; stream: string }[]>("core.log", {
      plugin,
      limit: 10000,
    });
    for (const e of log) {
      if (e.stream !== "core") continue;
      const ev = JSON.parse(e.line);
      if (ev.event === "start") out.engines.push(ev.engine);
      if (ev.event === "exit") out.exits.push(ev.status === 0 ? "ok" : `failed ${ev.trap ?? ""}`);
    }
    out.files = await tree(t.root);
    out.notes = t.notes;
    return out;
  } finally {
    await t.close();
    Deno.env.delete("SAUSAGE_ENGINE");
  }
}

/** The world's files (less the core's own state) as path → content or link target. */
async function tree(root: string, rel = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of Deno.readDir(`${root}/${rel}`)) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (path === "state/core" || path === "plugins") continue;
    if (e.isSymlink) out[path] = `-> ${await Deno.readLink(`${root}/${path}`)}`;
    else if (e.isDirectory) Object.assign(out, { [`${path}/`]: "" }, await tree(root, path));
    else out[path] = await Deno.readTextFile(`${root}/${path}`);
  }
  return out;
}

for (const [plugin, calls] of Object.entries(SCRIPTS)) {
  Deno.test(`${plugin}: the same answers, files and exits on our preview-1 binding and on jco`, async () => {
    const wasm = await builtTestPlugin(plugin);
    const jco = await outcome(plugin, wasm, "jco", calls);
    const p1 = await outcome(plugin, wasm, "p1", calls);
    assert(jco.engines.length > 0 && jco.engines.every((e) => e === "jco"), `${jco.engines}`);
    assert(p1.engines.length > 0 && p1.engines.every((e) => e === "p1"), `${p1.engines}`);
    const same = (what: string, a: unknown[] | Record<string, string>, b: typeof a) => {
      const [x, y] = [a, b].map((v) => Object.entries(v).map(([k, e]) => `${k}: ${normal(e)}`));
      const i = x.findIndex((e, i) => e !== y[i]);
      assert(i < 0 && x.length === y.length, `${what} differ:\njco ${x[i]}\np1  ${y[i]}`);
    };
    same("answers", jco.answers, p1.answers);
    const exit = calls.find(([m]) => m === "exit");
    if (exit) assert(p1.exitCode?.endsWith(`status ${exit[1].code}`), `exit code: ${p1.exitCode}`);
    same("exits", jco.exits, p1.exits);
    same("files", jco.files, p1.files);
    same("notifications", jco.notes ?? [], p1.notes ?? []);
  });
}

Deno.test("a raw preview-1 plugin answers 5 MB and writes and reads 5 MB files on the binding", async () => {
  const wasm = await builtTestPlugin("probe");
  Deno.env.set("SAUSAGE_ENGINE", "p1");
  const t = await TestHost.start({ plugins: { probe: wasm } });
  try {
    const five = "y".repeat(5 * 2 ** 20);
    const echoed = await t.result<{ five: string }>("probe.echo", { five });
    assert(echoed.five === five, "the 5 MB answer came back whole");
    await t.result("probe.write_file", { path: "/five.txt", text: five });
    assert((await Deno.readTextFile(`${t.root}/five.txt`)) === five, "the 5 MB file on disk");
    const read = await t.result<string>("probe.read_file", { path: "/five.txt" });
    assert(read === five, "the 5 MB file read back");
    const log = await t.result<{ line: string; stream: string }[]>("core.log", {
      plugin: "probe",
      grep: '"event":"start"',
    });
    assert(log.length === 3 && log.every((e) => JSON.parse(e.line).engine === "p1"));
  } finally {
    await t.close();
    Deno.env.delete("SAUSAGE_ENGINE");
  }
});
