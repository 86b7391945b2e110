/**
 * The CLI as a user runs it: `./sausage` subprocesses against worlds with a
 * real component built from Rust source.
 */

import { spawnCollecting } from "./helpers/author.ts";
import { strict as assert } from "node:assert";
import { launcher, type Ran, sausage } from "./helpers/cli.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { eventually } from "./helpers/host.ts";
import { Terminal } from "./helpers/terminal.ts";

const probe = await builtTestPlugin("probe");
const opts = { sanitizeOps: false, sanitizeResources: false };

function oneLine(r: Ran): void {
  assert.equal(r.stderr.trim().split("\n").length, 1, `one line of error, got: ${r.stderr}`);
  assert.match(r.stderr, /^sausage: /);
}

Deno.test({ name: "bad input gets one clear line and a non-zero exit", ...opts }, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const unknown = await sausage("frobnicate");
  assert.equal(unknown.code, 2);
  oneLine(unknown);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  const typo = await sausage("buld");
  assert.equal(typo.code, 2);
  oneLine(typo);
  assert.match(typo.stderr, /unknown command "buld"; did you mean build\?/);
  const missing = await sausage("call", `${world}/nope`, "probe.echo");
  assert.equal(missing.code, 1);
  oneLine(missing);
  assert.match(missing.stderr, /world not found/);
  const badJson = await sausage("call", world, "probe.echo", "{text: milk}");
  assert.equal(badJson.code, 2);
  oneLine(badJson);
  assert.match(badJson.stderr, /not valid JSON/);
  const notObject = await sausage("call", world, "probe.echo", "[1]");
  assert.equal(notObject.code, 2);
  assert.match(notObject.stderr, /must be a JSON object/);
  const badFlag = await sausage("log", world, "--frob");
  assert.equal(badFlag.code, 2);
  oneLine(badFlag);
  const help = await sausage("help");
  assert.equal(help.code, 0);
  for (const cmd of ["run", "call", "ps", "log"]) {
    assert.match(help.stdout, new RegExp(`sausage ${cmd} <world>`));
  }
});

Deno.test({
  name: "call without a running host uses a transient one: result on stdout, error on stderr",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const ok = await sausage("call", world, "probe.echo", '{"text":"milk"}');
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { text: "milk" });
  const err = await sausage("call", world, "probe.error", '{"n":1}');
  assert.equal(err.code, 1);
  assert.equal(err.stdout, "");
  assert.deepEqual(JSON.parse(err.stderr), {
    code: -32042,
    message: "asked to fail",
    data: { n: 1 },
  });
  const none = await sausage("call", world, "ghost.x");
  assert.equal(none.code, 1);
  assert.equal(JSON.parse(none.stderr).code, -32001);
  assert.doesNotMatch(JSON.parse(none.stderr).message, /did you mean/);
  const misspelt = await sausage("call", world, "prob.echo", '{"text":"milk"}');
  assert.equal(misspelt.code, 1);
  assert.match(
    JSON.parse(misspelt.stderr).message,
    /no such plugin: prob .*did you mean the plugin probe\?$/,
  );
});

/** Runs `sausage <args>` on a terminal (a pty from `script`); what it printed, stdout and stderr together. */
async function onTerminal(...args: string[]): Promise<{ code: number; text: string }> {
  const line = [launcher, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const out = await new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  return { code: out.code, text: new TextDecoder().decode(out.stdout).replaceAll("\r", "") };
}

Deno.test({
  name: "a panic through call shows its message and line for people; --json keeps the data",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const people = await onTerminal("call", world, "probe.panic");
  assert.equal(people.code, 1, people.text);
  assert.match(
    people.text,
    /probe was asked to panic \(probe-\S+ panicked at src\/main\.rs:\d+:\d+, and ended without an answer\)/,
  );
  assert.doesNotMatch(people.text, /\[core\]|"event"|"status"|"trap"|RUST_BACKTRACE/, people.text);
  const json = await sausage("call", world, "probe.panic", "--json");
  assert.equal(json.code, 1);
  const error = JSON.parse(json.stderr);
  assert.equal(error.code, -32002);
  assert.equal(error.data.status, 1);
  assert.ok(error.data.lines.some((l: string) => l.startsWith("[core] ")), "the raw lines stay");
});

Deno.test({
  name: "log reads the journal without a host: newest last, by plugin or pid, -n, --json",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  await sausage("call", world, "probe.chatter");
  const all = JSON.parse((await sausage("log", world, "--json", "-n", "1000")).stdout) as {
    pid: string;
    line: string;
    id: string;
  }[];
  const ids = all.map((e) => e.id);
  assert.deepEqual(ids, [...ids].sort(), "newest last");
  const pid = all.find((e) => e.line === "a line on stderr")!.pid;
  const byPid = JSON.parse((await sausage("log", world, pid, "--json")).stdout) as {
    pid: string;
  }[];
  assert.ok(byPid.length >= 4 && byPid.every((e) => e.pid === pid));
  const byPlugin = await sausage("log", world, "probe", "-n", "2");
  assert.equal(byPlugin.code, 0);
  // For people, as the headless run prints: a process's lines, then a line per finished call.
  const lines = byPlugin.stdout.trim().split("\n");
  assert.ok(lines.length >= 1 && lines.length <= 2, byPlugin.stdout);
  for (const line of lines) {
    assert.match(line, /^\d\d:\d\d:\d\d\.\d{3} (probe\S* )?probe-[0-9a-f-]+( |$)/m);
  }
  const whole = await sausage("log", world, pid);
  assert.match(
    whole.stdout,
    /^\d\d:\d\d:\d\d\.\d{3} probe\.chatter probe-[0-9a-f-]+ \d+ ms exit 0$/m,
  );
  assert.match(whole.stdout, /^\d\d:\d\d:\d\d\.\d{3} probe-[0-9a-f-]+ another line on stderr$/m);
  assert.doesNotMatch(whole.stdout, /"event"/, "no raw core events without --json");
  const badN = await sausage("log", world, "-n", "lots");
  assert.equal(badN.code, 2);
});

Deno.test({
  name: "run serves calls, ps and log; core.exit ends it with 75; SIGTERM ends it with 0",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { probe },
    files: { "config/boot.json": '[{"method": "probe.serve", "params": {"from": "boot"}}]' },
  });
  const host = new Deno.Command(launcher, {
    args: ["run", world],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await eventually(
    async () => {
      try {
        return (await Deno.stat(`${world}/state/core/host.json`)).isFile;
      } catch {
        return false;
      }
    },
    "the host to start",
    60_000, // a wait, not a measure: a host's start took over 20 s at load 15-20
  );
  const ps = JSON.parse(
    await eventually(async () => {
      const r = await sausage("ps", world, "--json");
      return r.stdout.includes('"state":"answered"') && r.stdout;
    }, "the boot process in ps"),
  ) as { pid: string; method: string; parent: string; detached: boolean; state: string }[];
  const boot = ps.find((p) => p.method === "serve")!;
  assert.equal(boot.parent, "core");
  assert.equal(boot.detached, true);
  assert.equal(boot.state, "answered");
  const table = await sausage("ps", world);
  assert.match(table.stdout, /^PID +METHOD +PARENT +DETACHED +START +STATE/);
  const viaHost = await sausage("call", world, "probe.env");
  assert.equal(JSON.parse(viaHost.stdout).parent, "console");
  const logged = await sausage("log", world, boot.pid);
  assert.match(logged.stdout, /probe\.serve probe-\S+ running$/m);
  const exit = await sausage("call", world, "core.exit");
  assert.equal(exit.code, 0);
  const status = await host.status;
  assert.equal(status.code, 75);
  await host.stdout.cancel();
  await host.stderr.cancel();
  const after = await sausage("log", world, boot.pid);
  assert.match(after.stdout, /stdin closed/, "the boot process was stopped at shutdown");

  const again = new Deno.Command(launcher, { args: ["run", world], stdout: "null", stderr: "null" })
    .spawn();
  await eventually(
    async () => (await sausage("ps", world, "--json")).stdout.includes("serve"),
    "restart",
    60_000, // a wait, not a measure (see above)
  );
  again.kill("SIGTERM");
  assert.equal((await again.status).code, 0);
  await assert.rejects(Deno.stat(`${world}/state/core/host.json`));
});

Deno.test({
  name: "ls and cat show the filesystem as a process sees it, with and without a host",
  ...opts,
}, async () => {
  const fsprobe = await builtTestPlugin("fsprobe");
  const world = await makeWorld({
    plugins: { fsprobe },
    files: {
      "config/boot.json":
        '[{"method": "fsprobe.run", "params": {"ops": [{"op": "write", "path": "/run/booted", "text": "yes"}]}}]',
    },
  });
  const protocol = await sausage("cat", world, "/proc/core/PROTOCOL.md");
  assert.equal(protocol.code, 0);
  assert.equal(
    protocol.stdout,
    await Deno.readTextFile(new URL("../PROTOCOL.md", import.meta.url)),
  );
  const root = await sausage("ls", world);
  assert.deepEqual(root.stdout.trim().split("\n"), [
    "config/",
    "plugins/",
    "proc/",
    "run/",
    "state/",
  ]);
  assert.match((await sausage("ls", world, "/proc/core")).stdout, /^locks\.json$/m);
  const outside = await sausage("cat", world, "/../etc/passwd");
  assert.equal(outside.code, 1);
  oneLine(outside);
  assert.match(outside.stderr, /outside the world/);
  const missing = await sausage("cat", world, "/nope");
  assert.match(missing.stderr, /no such file/);

  const host = new Deno.Command(launcher, { args: ["run", world], stdout: "null", stderr: "null" })
    .spawn();
  try {
    const booted = await eventually(
      async () => {
        const r = await sausage("cat", world, "/run/booted");
        return r.code === 0 && r.stdout;
      },
      "the boot process to write /run/booted",
      60_000, // a wait, not a measure: over 20 s at load 15-20
    );
    assert.equal(booted, "yes");
    assert.match((await sausage("ls", world, "/run")).stdout, /^booted$/m);
  } finally {
    host.kill("SIGTERM");
    await host.status;
  }
  const after = await sausage("cat", world, "/run/booted");
  assert.equal(after.code, 1, "/run is empty without the host that wrote it");
});

Deno.test({
  name: "run of a world whose plugin does not compile shows the compiler's message and runs on",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { probe },
    files: {
      "plugins/broken/source/Cargo.toml":
        '[package]\nname = "broken_cli_test"\nversion = "0.1.0"\nedition = "2021"\n',
      "plugins/broken/source/src/main.rs": 'fn main() { let x: u32 = "no"; }\n',
    },
  });
  const hostRun = spawnCollecting(launcher, {
    args: ["run", world, "--headless"],
  });
  const host = hostRun.child;
  const stderr = hostRun.stderr;
  try {
    await eventually(() => stderr().includes("sausage: running"), "the host to run", 180_000);
    assert.match(stderr(), /broken has no plugin\.wasm: testing, building, checking/);
    assert.match(stderr(), /mismatched types/);
    assert.match(stderr(), /src\/main\.rs:1:26/);
    assert.match(
      stderr(),
      /^sausage: broken was not built: it does not compile; it has no version before/m,
    );
    assert.match(stderr(), /running .*broken not installed/);
    // The others run; the broken one answers with what went wrong.
    const ok = await sausage("call", world, "probe.noop");
    assert.equal(ok.code, 0, ok.stderr);
    const broken = await sausage("call", world, "broken.anything");
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /-32001/);
    assert.match(broken.stderr, /broken/);
  } finally {
    host.kill("SIGTERM");
    assert.equal((await host.status).code, 0);
    await hostRun.read;
  }
});

Deno.test({
  name:
    "a long call: ps elsewhere sees its transient host's process, Ctrl-C cancels it and says so, a spinner on a terminal",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { probe } });
  const call = new Deno.Command(launcher, {
    args: ["call", world, "probe.spin"],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const seen = await eventually(
    async () => {
      const r = await sausage("ps", world);
      return / spin +console/.test(r.stdout) && r;
    },
    "ps from another terminal lists the call",
    60_000,
  );
  assert.match(seen.stderr, /the host of \S+: pid \d+ \(sausage call, transient\)/);
  assert.match(
    seen.stdout,
    /^PID +METHOD .*\n\S+ +spin +console +no +\d\d:\d\d:\d\d +running/,
  );
  call.kill("SIGINT");
  const out = await call.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 130, stderr);
  assert.match(stderr, /probe\.spin cancelled after \d+\.\d s; its process probe-\S+ was stopped/);
  assert.doesNotMatch(stderr, /\r|Ctrl-C cancels/, "off a terminal: no spinner");
  assert.equal(new TextDecoder().decode(out.stdout), "");
  const after = await sausage("ps", world);
  assert.match(after.stderr, /no host runs/);

  // Through a running host: Ctrl-C sends core.cancel, and the host stops the process.
  const host = new Deno.Command(launcher, {
    args: ["run", world, "--headless", "--quiet"],
    stdout: "null",
    stderr: "null",
    stdin: "null",
  }).spawn();
  try {
    await eventually(
      async () => {
        const r = await sausage("ps", world);
        return /sausage run/.test(r.stderr);
      },
      "the host to run",
      60_000,
    );
    const viaHost = new Deno.Command(launcher, {
      args: ["call", world, "probe.spin"],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).spawn();
    await eventually(
      async () => / spin +console/.test((await sausage("ps", world)).stdout),
      "spin",
    );
    viaHost.kill("SIGINT");
    const done = await viaHost.output();
    const text = new TextDecoder().decode(done.stderr);
    assert.equal(done.code, 130, text);
    assert.match(
      text,
      /probe\.spin cancelled after \d+\.\d s; its process probe-\S+ is being stopped/,
    );
    await eventually(
      async () => !/ spin /.test((await sausage("ps", world)).stdout),
      "the host to stop the process",
      30_000,
    );
  } finally {
    host.kill("SIGTERM");
    await host.status;
  }

  // On a terminal: the spinner with the elapsed time, on stderr; Ctrl-C there too.
  const t = await Terminal.start(`${launcher} call ${world} probe.spin`);
  try {
    await t.waitFor(/[|/\\-] probe\.spin \d+\.\d s \(Ctrl-C cancels\)/, "the spinner", 60_000);
    await t.press("C-c");
    await t.waitFor(/probe\.spin cancelled after \d+\.\d s/, "the cancel", 30_000);
    await t.waitFor(/\[exit 130\]/, "exit 130", 30_000);
  } finally {
    await t.close();
  }
});

Deno.test({
  name: "text for people (issue 40): log of an unknown plugin or pid, an unbuilt plugin, " +
    "did-you-mean of the same kind",
  ...opts,
}, async () => {
  const world = await makeWorld({
    plugins: { probe },
    files: {
      "plugins/unbuilt/source/Cargo.toml": '[package]\nname = "unbuilt"\nversion = "0.1.0"\n',
      "plugins/unbuilt/source/src/main.rs": "fn main() {}\n",
    },
  });
  // A call first, so the journal has entries of probe.
  assert.equal((await sausage("call", world, "probe.echo", '{"text":"x"}')).code, 0);

  // `log` of an unknown plugin: an error with the closest plugin, not an empty answer.
  const typo = await sausage("log", world, "prob");
  assert.equal(typo.code, 2);
  oneLine(typo);
  assert.match(typo.stderr, /no plugin prob in \S+; did you mean probe\? \(plugins: .*probe/);
  const nothing = await sausage("log", world, "nosuch");
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /no plugin nosuch in /);
  assert.doesNotMatch(nothing.stderr, /did you mean/);
  // ...or pid: the closest pid of the journal.
  const pid = JSON.parse((await sausage("log", world, "probe", "--json")).stdout)[0].pid as string;
  const wrongPid = pid.slice(0, -1) + (pid.endsWith("0") ? "1" : "0");
  const noPid = await sausage("log", world, wrongPid);
  assert.equal(noPid.code, 2);
  oneLine(noPid);
  assert.match(
    noPid.stderr,
    new RegExp(`no process ${wrongPid} in the journal .*did you mean ${pid}\\?`),
  );
  // A plugin of the world not called yet is no error.
  const quiet = await sausage("log", world, "unbuilt");
  assert.equal(quiet.code, 0, quiet.stderr);

  // An unbuilt plugin's error names the command that builds it.
  const unbuilt = await sausage("call", world, "unbuilt.main");
  assert.equal(unbuilt.code, 1);
  assert.match(
    JSON.parse(unbuilt.stderr).message,
    /unbuilt is not built .*build it with `sausage build \S+ unbuilt`/,
  );

  // Did-you-mean of the same kind: a plugin for a plugin, a method for a method; none far off.
  const plugin = await sausage("call", world, "prob.echo");
  assert.match(JSON.parse(plugin.stderr).message, /did you mean the plugin probe\?$/);
  const far = await sausage("call", world, "typo.echo");
  assert.doesNotMatch(JSON.parse(far.stderr).message, /did you mean/);
  // (A method's did-you-mean comes from the SDK's plugins: tests/author_loop_test.ts; probe is raw.)
  const method = await sausage("call", world, "probe.ecoh");
  assert.doesNotMatch(JSON.parse(method.stderr).message, /did you mean the plugin/);
});
