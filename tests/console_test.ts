/**
 * The console of `sausage run` as a person uses it: the real `./sausage` in
 * a tmux pane, keys sent with `send-keys`, the screen read with
 * `capture-pane`. The world has the example `notes` plugin and the test
 * plugin `talker` as its agent, both built from Rust source.
 */

import { strict as assert } from "node:assert";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { readJournal } from "../core/journal/journal.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { Terminal } from "./helpers/terminal.ts";
import { makeWorld } from "./helpers/world.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const launcher = `${ROOT}/sausage`;
const notes = await cachedBuild(`${ROOT}/examples/notes`, "test-plugins", "notes");
const talker = await builtTestPlugin("talker");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** Lines of a screen, without trailing spaces and empty lines at the end. */
function linesOf(screen: string): string[] {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Starts `sausage run` on `world` in a terminal and waits for the prompt. */
async function open(world: string, env: Record<string, string> = {}): Promise<Terminal> {
  const t = await Terminal.start(`${launcher} run ${world}`, { env: { NO_COLOR: "", ...env } });
  try {
    await t.waitFor((s) => linesOf(s).at(-1) === ">", "the prompt", 60_000);
  } catch (e) {
    await t.close();
    throw e;
  }
  return t;
}

/**
 * A test on the console of `sausage run` on a fresh world with `spec`'s
 * plugins (`env` for the terminal); the terminal is closed at the end.
 */
function consoleTest(
  name: string,
  spec: { plugins: Record<string, string>; env?: Record<string, string> },
  fn: (t: Terminal, world: string) => Promise<void>,
): void {
  Deno.test({ name, ...opts }, async () => {
    const world = await makeWorld({ plugins: spec.plugins });
    const t = await open(world, spec.env);
    try {
      await fn(t, world);
    } finally {
      await t.close();
    }
  });
}

/** Types `line` and Enter; resolves with the lines printed below it once the prompt is back. */
async function enter(t: Terminal, line: string): Promise<string[]> {
  await t.type(line);
  await t.press("Enter");
  let out: string[] = [];
  await t.waitFor((s) => {
    const lines = linesOf(s);
    const at = lines.lastIndexOf(`> ${line}`);
    if (at < 0 || at === lines.length - 1 || lines.at(-1) !== ">") return false;
    out = lines.slice(at + 1, -1);
    return true;
  }, `the output of ${line}`);
  return out;
}

/** Waits until the pane's command has ended; resolves with its exit code. */
async function exited(t: Terminal): Promise<number> {
  const s = await t.waitFor(/\[exit \d+\]/, "the end of sausage run", 30_000);
  return Number(/\[exit (\d+)\]/.exec(s)![1]);
}

consoleTest(
  "console: a call's result is indented below it; ls /proc, cat /proc/core/locks.json, " +
    "methods notes",
  { plugins: { notes }, env: { NO_COLOR: "1" } },
  async (t) => {
    assert.deepEqual(await enter(t, 'notes.add {"text": "milk"}'), [
      "  {",
      '    "count": 1',
      "  }",
    ]);
    assert.deepEqual(await enter(t, "notes.list"), ["  [", '    "milk"', "  ]"]);
    const ls = await enter(t, "ls /proc");
    assert.ok(ls.length > 0 && ls.every((l) => l.startsWith("  ")), ls.join("\n"));
    assert.match(ls.join(" "), /\bcore\//);
    const root = await enter(t, "ls");
    assert.match(root.join(" "), /\bplugins\//);
    assert.match(root.join(" "), /\bstate\//);
    assert.deepEqual(await enter(t, "cat /proc/core/locks.json"), [
      "  {",
      '    "locks": []',
      "  }",
    ]);
    const methods = (await enter(t, "methods notes")).join("\n");
    assert.match(methods, /^ {2}notes\.add \{text: string\} -> Added$/m);
    assert.match(methods, /^ {6}Add a note at the end of the list\.$/m);
    assert.match(methods, /^ {6}text: string, required\. The text of the new note\./m);
    assert.match(methods, /^ {2}notes\.list \{\} -> array of string$/m);
    // Lines for people, as `sausage log` prints them: no raw core events.
    const logged = (await enter(t, "log notes -n 2")).join("\n");
    assert.match(logged, /\d\d:\d\d:\d\d\.\d{3} (notes\S* )?notes-[0-9a-f-]+/);
    assert.doesNotMatch(logged, /"event"/);
    const colored = await t.screen(true);
    for (const sgr of ["\x1b[31m", "\x1b[2m", "\x1b[1m"]) {
      assert.ok(!colored.includes(sgr), "NO_COLOR: no colours");
    }
  },
);

Deno.test({
  name: "console: Tab completes a method, and the history is there after a restart",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { notes } });
  let t = await open(world);
  try {
    await t.type("notes.a");
    await t.press("Tab");
    await t.waitFor((s) => linesOf(s).at(-1) === "> notes.add", "notes.a<Tab> to complete");
    await t.type(' {"text": "eggs"}');
    await t.press("Enter");
    await t.waitFor(
      /^> notes\.add \{"text": "eggs"\}\n {2}\{\n {4}"count": 1\n {2}\}\n>/m,
      "the result",
    );
    await t.type("notes.");
    await t.press("Tab", "Tab");
    await t.waitFor(/notes\.add\s+notes\.list/, "notes.<Tab><Tab> to list the methods");
    await t.press("C-c");
    await t.waitFor((s) => linesOf(s).at(-1) === ">", "Ctrl-C to clear the line");
    await t.type("quit");
    await t.press("Enter");
    assert.equal(await exited(t), 0);
  } finally {
    await t.close();
  }
  const history = await Deno.readTextFile(`${world}/state/console/history`);
  assert.deepEqual(history.trim().split("\n"), ['notes.add {"text": "eggs"}', "quit"]);

  t = await open(world);
  try {
    await t.press("Up");
    await t.waitFor((s) => linesOf(s).at(-1) === "> quit", "Up to bring back quit");
    await t.press("Up");
    await t.waitFor(
      (s) => linesOf(s).at(-1) === '> notes.add {"text": "eggs"}',
      "Up again to bring back the call of the last run",
    );
    await t.press("Enter");
    await t.waitFor(/"count": 2/, "the call from the history to run again");
    // Ctrl-R finds an earlier input by what it contains; Enter runs it.
    await t.press("C-r");
    await t.type("egg");
    await t.waitFor(
      (s) => linesOf(s).at(-1) === `(search 'egg') notes.add {"text": "eggs"}`,
      "Ctrl-R to find the call",
    );
    await t.press("Enter");
    await t.waitFor(/"count": 3/, "the call found by Ctrl-R to run");
    // Paths complete too.
    await t.type("ls /pr");
    await t.press("Tab");
    await t.waitFor((s) => linesOf(s).at(-1) === "> ls /proc/", "ls /pr<Tab> to complete");
  } finally {
    await t.close();
  }
});

consoleTest(
  "console: a notification arriving while half a line is typed leaves the typed text intact",
  { plugins: { notes, agent: talker } },
  async (t, world) => {
    const started = await enter(t, 'agent.tick {"count": 2, "ms": 1200} &');
    assert.deepEqual(started, [
      "  [1] agent.tick runs detached (ps shows it; stop <pid> ends it)",
    ]);
    await t.type('notes.add {"te');
    const screen = await t.waitFor(/tick \{"i":0\}/, "the first notification");
    const lines = linesOf(screen);
    assert.equal(lines.at(-1), '> notes.add {"te', "the typed text is still on the prompt");
    assert.equal(lines.at(-2), '  [1] · tick {"i":0}', "the notification is above the prompt");
    await t.waitFor(/\[1\] agent\.tick ->/, "the background call's result");
    assert.equal(linesOf(await t.screen()).at(-1), '> notes.add {"te');
    // The line goes on as typed: the notifications did not get into it.
    await t.type('xt": "x"}');
    await t.press("Enter");
    const done = await t.waitFor(/"count": 1/, "the finished line to run");
    assert.match(done, /^> notes\.add \{"text": "x"\}$/m);

    // Ctrl-Z does not freeze the world: it says why; Ctrl-L clears the screen.
    await t.press("C-z");
    await t.waitFor(/Ctrl-Z would freeze the world/, "the word about Ctrl-Z");
    await t.press("C-l");
    await t.waitFor((s) => !/Ctrl-Z would freeze/.test(s), "Ctrl-L to clear the screen");

    // Journal lines followed with log -f arrive the same way, here from a call made outside.
    assert.deepEqual(await enter(t, "log -f notes"), [
      "  following the journal of notes (log -f off stops)",
    ]);
    await t.type("notes.li");
    const outside = await new Deno.Command(launcher, {
      args: ["call", world, "notes.add", '{"text": "outside"}'],
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(outside.code, 0);
    const followed = linesOf(
      await t.waitFor((s) => / ms exit 0$/.test(linesOf(s).at(-2) ?? ""), "the journal lines"),
    );
    assert.equal(followed.at(-1), "> notes.li");
    assert.match(
      followed.join("\n"),
      /\d\d:\d\d:\d\d\.\d{3} notes\.add notes-[0-9a-f-]+ \d+ ms exit 0/,
    );
  },
);

Deno.test({
  name: "console: bad JSON, an unknown command, method or plugin get one red line and the " +
    "prompt returns; quit stops the host cleanly",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { notes } });
  const t = await open(world);
  try {
    const bad = await enter(t, 'notes.add {"text": milk}');
    assert.equal(bad.length, 1, bad.join("\n"));
    assert.match(bad[0], /\^ bad JSON at column 20: Unexpected token 'm'/);
    assert.equal(bad[0].indexOf("^"), "> ".length + 'notes.add {"text": '.length, "under the m");
    const unknown = await enter(t, "frobnicate");
    assert.deepEqual(unknown, ['  unknown command "frobnicate" (help lists the commands)']);
    assert.deepEqual(await enter(t, "mehtods notes"), [
      '  unknown command "mehtods"; did you mean methods?',
    ]);
    assert.deepEqual(await enter(t, "hello there"), [
      "  no agent in this world (plugins/agent/ with a chat method); call plugins directly, " +
      "like notes.<Tab>, or type help",
    ]);
    assert.deepEqual(await enter(t, "lss"), [
      '  unknown command "lss"; did you mean ls? (help lists the commands)',
    ]);
    assert.deepEqual(await enter(t, "notes.ad"), [
      '  notes has no method "ad"; did you mean notes.add? (methods: add, list)',
    ]);
    assert.deepEqual(await enter(t, "nots.list"), [
      '  no plugin "nots" in this world; did you mean notes? (plugins: notes)',
    ]);
    assert.deepEqual(await enter(t, "cat /nope"), ["  /nope: no such file or folder"]);
    assert.deepEqual(await enter(t, "stop"), ["  usage: stop <pid>"]);
    assert.deepEqual(await enter(t, "revert notes"), [
      "  notes has no previous version (no plugins/notes/plugin.prev.wasm)",
    ], "a refusal is the core's text, not JSON");
    assert.ok(
      (await t.screen(true)).includes('  \x1b[31munknown command "frobnicate"'),
      "errors are red",
    );
    // Nothing typed ends the console: each of these gets its line and the prompt again.
    const odd = [
      "{}",
      ".",
      "notes.",
      "core.nope",
      'core.call {"method": 1}',
      "a.b.c {",
      "ls ../..",
      "cat /proc",
      "cat /proc/core",
      "log -n",
      "log -n 0",
      "log ghost",
      "activate a b",
      "revert ../x",
      "kill x",
      "methods ghost",
      '"quoted"',
      "&",
      "\\",
    ];
    for (const line of odd) {
      const out = await enter(t, line);
      assert.ok(out.length >= 1, `${line} got an answer`);
    }
    assert.deepEqual(await enter(t, "notes.list"), ["  []"], "the host still answers");
    await t.type("quit");
    await t.press("Enter");
    assert.equal(await exited(t), 0);
    assert.match(await t.screen(), /sausage: stopping\n\[exit 0\]/);
  } finally {
    await t.close();
  }
  await assert.rejects(Deno.stat(`${world}/state/core/host.json`), "the host file is removed");
  const last = readJournal(`${world}/state/core/journal.sqlite`, { plugin: "core", limit: 1 });
  assert.match(last[0].line, /"event":"shutdown"/);
});

consoleTest(
  "console: free text goes to agent.chat with its texts as they come; a long call shows " +
    "a spinner and Ctrl-C cancels it",
  { plugins: { notes, agent: talker } },
  async (t) => {
    assert.deepEqual(await enter(t, "hello there"), [
      "  thinking about hello there",
      "  still thinking",
      "  you said: hello there",
    ]);
    await t.type('agent.sleep {"ms": 30000}');
    await t.press("Enter");
    await t.waitFor(/agent\.sleep \d+\.\d s \(Ctrl-C cancels\)$/m, "the spinner");
    await t.press("C-c");
    const s = await t.waitFor((s) => linesOf(s).at(-1) === ">", "the prompt after Ctrl-C");
    assert.match(s, /^ {2}cancelled: the call's processes were killed\n>$/m);
    const ps = await enter(t, "ps");
    assert.doesNotMatch(ps.join("\n"), /agent\.sleep|sleep/, "the call's process is gone");
  },
);

Deno.test({
  name: "sausage run --headless, or with a stdin that is no terminal, opens no console",
  ...opts,
}, async () => {
  const world = await makeWorld({ plugins: { notes } });
  const t = await Terminal.start(`${launcher} run --headless ${world}`);
  try {
    await t.waitFor(/Ctrl-C stops it/, "the host to run");
    await t.press("C-c");
    assert.equal(await exited(t), 0);
    assert.doesNotMatch(await t.screen(), /^>/m, "no prompt");
  } finally {
    await t.close();
  }
  const child = new Deno.Command(launcher, {
    args: ["run", world],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const read = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
  })();
  const stdout = new Response(child.stdout).text();
  const until = Date.now() + 60_000;
  while (!/stops it/.test(err) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.match(err, /Ctrl-C stops it/);
  child.kill("SIGTERM");
  const status = await child.status;
  await read;
  assert.equal(status.code, 0);
  const out = { stdout: new TextEncoder().encode(await stdout) };
  assert.equal(new TextDecoder().decode(out.stdout), "", "no prompt on stdout");
});
