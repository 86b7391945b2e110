import { strict as assert } from "node:assert";
import { LOG_DEFAULT, parseInput } from "./input.ts";

Deno.test("a method with JSON is a call; without JSON its params are {}", () => {
  assert.deepEqual(parseInput('notes.add {"text": "milk"}'), {
    kind: "call",
    method: "notes.add",
    params: { text: "milk" },
    background: false,
  });
  assert.deepEqual(parseInput("  notes.list  "), {
    kind: "call",
    method: "notes.list",
    params: {},
    background: false,
  });
  assert.deepEqual(parseInput("notes.rpc.discover"), {
    kind: "call",
    method: "notes.rpc.discover",
    params: {},
    background: false,
  });
});

Deno.test("a final & runs a call in the background", () => {
  assert.deepEqual(parseInput('agent.tick {"count": 2} &'), {
    kind: "call",
    method: "agent.tick",
    params: { count: 2 },
    background: true,
  });
  assert.equal((parseInput("notes.list&") as { background: boolean }).background, true);
});

Deno.test("bad JSON is an error with the column of the line where it is", () => {
  const line = 'notes.add {"text": milk}';
  const r = parseInput(line);
  assert.equal(r.kind, "error");
  if (r.kind !== "error") return;
  assert.equal(r.column, line.indexOf("milk") + 1);
  assert.match(r.message, /^bad JSON at column 20: Unexpected token 'm'$/);
  const arr = parseInput("notes.add [1]");
  assert.match((arr as { message: string }).message, /must be a JSON object/);
  const leading = parseInput('   notes.add {"a" 1}');
  assert.equal((leading as { column: number }).column, '   notes.add {"a" '.length + 1);
});

Deno.test("commands take their arguments, and say their usage when they are wrong", () => {
  assert.deepEqual(parseInput("ls"), { kind: "ls", path: "/" });
  assert.deepEqual(parseInput("ls /proc"), { kind: "ls", path: "/proc" });
  assert.deepEqual(parseInput("cat /proc/core/locks.json"), {
    kind: "cat",
    path: "/proc/core/locks.json",
  });
  assert.deepEqual(parseInput("cat"), { kind: "error", message: "usage: cat <path>" });
  assert.deepEqual(parseInput("methods notes"), { kind: "methods", plugin: "notes" });
  assert.deepEqual(parseInput("activate notes /state/cargo/builds/1/notes.wasm"), {
    kind: "activate",
    plugin: "notes",
    wasm: "/state/cargo/builds/1/notes.wasm",
  });
  assert.deepEqual(parseInput("kill notes-1"), { kind: "kill", pid: "notes-1" });
  assert.deepEqual(parseInput("ps"), { kind: "ps" });
  assert.deepEqual(parseInput("ps -a"), { kind: "error", message: "usage: ps" });
  assert.deepEqual(parseInput("quit"), { kind: "quit" });
});

Deno.test("log takes a plugin or pid, -n N and -f", () => {
  assert.deepEqual(parseInput("log"), {
    kind: "log",
    who: undefined,
    limit: LOG_DEFAULT,
    filter: {},
  });
  assert.deepEqual(parseInput("log notes -n 5"), {
    kind: "log",
    who: "notes",
    limit: 5,
    filter: {},
  });
  assert.deepEqual(parseInput("log -f"), { kind: "follow", who: undefined, filter: {} });
  assert.deepEqual(parseInput("log -f notes"), { kind: "follow", who: "notes", filter: {} });
  assert.deepEqual(parseInput("log notes --level warn --field user=7 --field table=notes"), {
    kind: "log",
    who: "notes",
    limit: LOG_DEFAULT,
    filter: { level: "warn", fields: { user: 7, table: "notes" } },
  });
  assert.deepEqual(parseInput("log -f --level error"), {
    kind: "follow",
    who: undefined,
    filter: { level: "error" },
  });
  assert.equal(parseInput("log --level loud").kind, "error");
  assert.equal(parseInput("log --field nokey").kind, "error");
  assert.deepEqual(parseInput("log -f off"), { kind: "unfollow" });
  assert.match((parseInput("log -n x") as { message: string }).message, /positive whole number/);
});

Deno.test("a lone word is left to the console; other text is a message to the agent", () => {
  assert.deepEqual(parseInput("frobnicate"), { kind: "word", word: "frobnicate" });
  assert.deepEqual(parseInput("what notes do I have?"), {
    kind: "chat",
    text: "what notes do I have?",
  });
  assert.deepEqual(parseInput("   "), { kind: "empty" });
});

Deno.test("a plugin's name and a dot without a method says what is missing", () => {
  assert.deepEqual(parseInput("notes."), {
    kind: "error",
    message: 'a method name goes after "notes." (notes.<Tab> lists them)',
  });
});
