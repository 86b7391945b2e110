/**
 * The two engines side by side: every test plugin and every example plugin
 * (`helpers/engine_cases.ts`: the SDK's plugins, whose main modules import
 * WASI 0.2 functions directly, and the agent with its outgoing HTTP among
 * them) runs the same calls on a world of its own through a real host on
 * each engine (`SAUSAGE_ENGINE=jco`, and the lean path), and the answers,
 * the notifications, the journal lines, the files the calls leave in the
 * world and how each process ended must be the same. Exit codes are
 * compared as success or failure: jco's adapter carries only ok/err
 * (`proc_exit(3)` arrives as 1), ours the code. Also: a raw preview-1
 * plugin (as a component, and as a plain core module) answers 5 MB and
 * writes and reads 5 MB files on the binding, and an SDK plugin takes and
 * answers 5 MB on it.
 *
 * @module
 */

import { strict as nodeAssert } from "node:assert";

const assert: (ok: unknown, message?: string) => asserts ok = nodeAssert;
import { builtTestPlugin } from "./helpers/plugins.ts";
import { eventually, TestHost } from "./helpers/host.ts";
import { type Case, CASES, type Env } from "./helpers/engine_cases.ts";
import { mainModuleOf } from "../wasm/main_module.ts";

/** What one engine did with a script: answers, exits, journal lines and the world's files. */
interface Outcome {
  answers: unknown[];
  exits: string[];
  files: Record<string, string>;
  engines: string[];
  /** The journal's lines of the world's plugins (the engine and exit codes left out), sorted. */
  journal: string[];
  /** The notifications the caller got. */
  notes?: unknown[];
  /** How the binding reported `exit {code}` (the code itself, which jco cannot carry). */
  exitCode?: string;
}

/**
 * A value as JSON with pids made alike (`<plugin>-<uuid>` → `<pid>`) and HTTP
 * dates hidden, cut to 300 characters.
 */
function normal(v: unknown): string {
  const json = JSON.stringify(v)
    .replace(/(?<![a-z])[a-z]+-[0-9a-f]{8}-[0-9a-f-]{27}/g, "<pid>")
    .replace(/(\\?"date\\?",\\?")[^"\\]*/gi, "$1<date>");
  return json.length > 300 ? `${json.slice(0, 300)}… (${json.length}, #${hashOf(json)})` : json;
}

/** A short hash of a long string, so that two long values differ where their ends differ. */
function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) >>> 0;
  return h;
}

/** Runs the calls of `c` through a host on `engine` and records what happened. */
async function outcome(c: Case, wasm: Record<string, string>, engine: "p1" | "jco", env: Env) {
  Deno.env.set("SAUSAGE_ENGINE", engine);
  const t = await TestHost.start({ plugins: wasm, files: c.files?.(env) });
  try {
    const out: Outcome = { answers: [], exits: [], files: {}, engines: [], journal: [] };
    for (const call of c.calls(env)) {
      const [method, params] = typeof call === "function" ? call(out.answers) : call;
      const r = await t.call(method, params);
      // jco's adapter carries ok/err only: a failure status is compared as a failure.
      const message = r.error?.message.replace(/status [1-9][0-9]*/, "status <failure>");
      const answer = r.error ? { error: r.error.code, message } : r.result;
      out.answers.push(c.alike ? c.alike(answer) : answer);
      if (engine === "p1" && method.endsWith(".exit")) out.exitCode = r.error?.message;
    }
    // Every attached process has ended (a callee's exit may come after its caller's answer).
    await eventually(async () => {
      const log = (grep: string) =>
        t.result<{ pid: string; line: string }[]>("core.log", { grep, limit: 10000 });
      const ended = new Set((await log('"event":"exit"')).map((e) => e.pid));
      const starts = await log('"event":"start"');
      return starts.every((e) => JSON.parse(e.line).detached || ended.has(e.pid));
    }, "every attached process to end");
    for (const plugin of Object.keys(wasm)) {
      const log = await t.result<{ line: string; stream: string }[]>("core.log", {
        plugin,
        limit: 10000,
      });
      for (const e of log) {
        let line = e.line;
        if (e.stream === "core") {
          const ev = JSON.parse(e.line);
          if (ev.event === "start") out.engines.push(ev.engine);
          if (ev.event === "exit") {
            out.exits.push(ev.status === 0 ? "ok" : `failed ${ev.trap ?? ""}`);
          }
          delete ev.engine;
          if (ev.event === "exit" && ev.status !== 0) ev.status = "<failure>";
          line = JSON.stringify(ev);
        }
        out.journal.push(normal(`${plugin} ${e.stream} ${line}`));
      }
    }
    out.journal.sort();
    out.exits.sort();
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

for (const [name, c] of Object.entries(CASES)) {
  Deno.test(`${name}: the same answers, journal, files and exits on the lean path and on jco`, async () => {
    const wasm = await c.plugins();
    const env = await c.around?.() ?? {};
    let jco: Outcome, p1: Outcome;
    try {
      jco = await outcome(c, wasm, "jco", env);
      p1 = await outcome(c, wasm, "p1", env);
      c.check?.(env);
    } finally {
      await (env as { close?: () => Promise<void> }).close?.();
    }
    assert(jco.engines.length > 0 && jco.engines.every((e) => e === "jco"), `${jco.engines}`);
    assert(p1.engines.length > 0 && p1.engines.every((e) => e === "p1"), `${p1.engines}`);
    const same = (what: string, a: unknown[] | Record<string, string>, b: typeof a) => {
      const [x, y] = [a, b].map((v) => Object.entries(v).map(([k, e]) => `${k}: ${normal(e)}`));
      const i = x.findIndex((e, i) => e !== y[i]);
      assert(i < 0 && x.length === y.length, `${what} differ:\njco ${x[i]}\np1  ${y[i]}`);
    };
    same("answers", jco.answers, p1.answers);
    const exit = c.calls(env).find((call) => Array.isArray(call) && call[0].endsWith(".exit"));
    if (Array.isArray(exit)) {
      assert(p1.exitCode?.endsWith(`status ${exit[1].code}`), `exit code: ${p1.exitCode}`);
    }
    same("exits", jco.exits, p1.exits);
    same("journal lines", jco.journal, p1.journal);
    same("files", jco.files, p1.files);
    same("notifications", jco.notes ?? [], p1.notes ?? []);
  });
}

/** The probe's main module alone: a plain preview-1 core module, as any toolchain makes one. */
async function plainProbe(): Promise<string> {
  const main = mainModuleOf(await Deno.readFile(await builtTestPlugin("probe")));
  const out = await Deno.makeTempFile({ suffix: ".wasm" });
  await Deno.writeFile(out, main.bytes);
  return out;
}

for (
  const [what, make] of [["component", () => builtTestPlugin("probe")], [
    "core module",
    plainProbe,
  ]] as const
) {
  Deno.test(`a raw preview-1 plugin (${what}) answers 5 MB and writes and reads 5 MB files on the binding`, async () => {
    const wasm = await make();
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
      assert((await engines(t, "probe")).join() === "p1,p1,p1");
    } finally {
      await t.close();
      Deno.env.delete("SAUSAGE_ENGINE");
    }
  });
}

Deno.test("an SDK plugin takes and answers 5 MB on the lean path (stdin through wasi:io/streams)", async () => {
  const { sdkprobe } = await CASES.sdkprobe.plugins();
  const t = await TestHost.start({ plugins: { sdkprobe } });
  try {
    const five = "z".repeat(5 * 2 ** 20);
    const echoed = await t.result<{ params: { five: string } }>("sdkprobe.echo", {
      method: "m",
      params: { five },
    });
    assert(echoed.params.five === five, "the 5 MB answer came back whole");
    assert((await engines(t, "sdkprobe")).join() === "p1");
  } finally {
    await t.close();
  }
});

/** The engines the `start` events of `plugin` name, in order. */
async function engines(t: TestHost, plugin: string): Promise<string[]> {
  const log = await t.result<{ line: string }[]>("core.log", { plugin, grep: '"event":"start"' });
  return log.map((e) => JSON.parse(e.line).engine);
}
