import { strict as assert } from "node:assert";
import { complete, type CompletionSource } from "./completer.ts";

const source: CompletionSource = {
  plugins: () => ["notes", "www"],
  methods: (plugin) =>
    Promise.resolve(plugin === "notes" ? ["add", "list"] : plugin === "core" ? ["kill"] : []),
  pids: () => ["notes-0192", "www-0193"],
  list: (path) =>
    Promise.resolve(
      ({
        "/": ["plugins/", "proc/", "state/"],
        "/proc/": ["core/"],
        "/state/cargo/builds/": ["1/", "2/", "10/"],
        "/state/cargo/builds/1/": ["notes.wasm"],
        "/state/cargo/builds/2/": ["www.wasm"],
        "/state/cargo/builds/10/": ["notes.wasm", "notes.openrpc.json"],
      } as Record<string, string[]>)[path] ?? [],
    ),
};

Deno.test("Tab: commands and plugins first, then methods after the dot", async () => {
  assert.deepEqual(await complete("me", source), [["methods "], "me"]);
  assert.deepEqual(await complete("no", source), [["notes."], "no"]);
  assert.deepEqual(await complete("notes.", source), [["notes.add", "notes.list"], "notes."]);
  assert.deepEqual(await complete("notes.a", source), [["notes.add"], "notes.a"]);
  assert.deepEqual(await complete("core.k", source), [["core.kill"], "core.k"]);
  assert.deepEqual(await complete("q", source), [["quit"], "q"]);
});

Deno.test("Tab: each command's arguments: plugins, pids, paths", async () => {
  assert.deepEqual(await complete("methods n", source), [["notes"], "n"]);
  assert.deepEqual(await complete("kill w", source), [["www-0193"], "w"]);
  assert.deepEqual(await complete("log ", source), [[
    "notes",
    "www",
    "notes-0192",
    "www-0193",
  ], ""]);
  assert.deepEqual(await complete("ls /p", source), [["/plugins/", "/proc/"], "/p"]);
  assert.deepEqual(await complete("cat /proc/", source), [["/proc/core/"], "/proc/"]);
  assert.deepEqual(await complete("activate notes /s", source), [[
    "/state/cargo/builds/10/notes.wasm",
    "/state/cargo/builds/1/notes.wasm",
  ], "/s"]);
  assert.deepEqual(await complete("activate www ", source), [[
    "/state/cargo/builds/2/www.wasm",
  ], ""]);
  assert.deepEqual(await complete("activate notes /p", source), [["/plugins/", "/proc/"], "/p"]);
  assert.deepEqual(await complete("ps x", source), [[], "x"]);
  assert.deepEqual(await complete('notes.add {"te', source), [[], '{"te']);
});
