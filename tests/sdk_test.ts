/**
 * The SDK (section 13) end to end: plugins written with `sausage-plugin`
 * (`examples/notes`, `sdk/tests/plugins/sdkprobe`), built from source with
 * the SDK patched in, running in a real host.
 */

import { loadFactor } from "./helpers/latency.ts";
import { strict as assert } from "node:assert";
import { buildPlugin } from "../core/cargo/cargo_build.ts";
import { validateOpenRpc } from "../rpc/openrpc.ts";
import { cargoTest } from "../core/cargo/test_run.ts";
import { eventually, hostTests } from "./helpers/host.ts";
import { builtCrate } from "./helpers/plugins.ts";
import { freePort } from "./helpers/net.ts";
import { parseExact } from "../rpc/exact_json.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
const opts = { sanitizeOps: false, sanitizeResources: false };

const notes = await builtCrate("examples/notes", "notes");
const sdkprobe = await builtCrate("sdk/tests/plugins/sdkprobe", "sdkprobe");
const www = await builtCrate("examples/www", "www");
const consumer = await builtCrate("examples/consumer", "consumer");

const test = hostTests({ plugins: { notes, sdkprobe, www, consumer } });

interface MethodDoc {
  name: string;
  summary?: string;
  description?: string;
  paramStructure: string;
  params: {
    name: string;
    required: boolean;
    description?: string;
    schema: Record<string, unknown>;
  }[];
  result: { name: string; schema: Record<string, unknown> };
  "x-sausage-params"?: { name: string; description: string };
}

interface Doc {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: MethodDoc[];
  "x-sausage-endpoints": Record<string, { methods: MethodDoc[] }>;
  "x-sausage-imports": Record<string, unknown>;
}

test("notes.add appends and notes.list returns the notes, the oldest first", async (h) => {
  assert.deepEqual(await h.result("notes.list"), []);
  assert.deepEqual(await h.result("notes.add", { text: "milk" }), { count: 1 });
  assert.deepEqual(await h.result("notes.add", { text: "eggs\nand bread" }), { count: 2 });
  assert.deepEqual(await h.result("notes.list"), ["milk", "eggs\nand bread"]);
  const file = JSON.parse(await Deno.readTextFile(`${h.root}/state/notes/notes.json`));
  assert.deepEqual(file, ["milk", "eggs\nand bread"]);
});

test("100 concurrent notes.add calls leave 100 notes (core.lock around the file)", async (h) => {
  const texts = Array.from({ length: 100 }, (_, i) => `note ${i}`);
  const counts = await Promise.all(
    texts.map((text) => h.result<{ count: number }>("notes.add", { text })),
  );
  assert.deepEqual(counts.map((c) => c.count).sort((a, b) => a - b), texts.map((_, i) => i + 1));
  const list = await h.result<string[]>("notes.list");
  assert.equal(list.length, 100);
  assert.deepEqual([...list].sort(), [...texts].sort());
});

test("rpc.discover describes notes from its doc comments, as valid OpenRPC", async (h) => {
  const doc = await h.result<Doc>("notes.rpc.discover");
  assert.deepEqual(validateOpenRpc(doc), []);
  assert.equal(doc.openrpc, "1.2.6");
  assert.equal(doc.info.title, "notes");
  assert.equal(doc.info.version, "0.1.0");
  assert.match(doc.info.description!, /^Notes: a list of short texts.*\n\nEach call runs/s);
  assert.deepEqual(doc.methods.map((m) => m.name), ["add", "list"]);
  const [add, list] = doc.methods;
  assert.equal(add.summary, "Add a note at the end of the list.");
  assert.equal(add.description, "Returns the number of notes after the call.");
  assert.equal(add.paramStructure, "by-name");
  assert.deepEqual(add.params, [{
    name: "text",
    required: true,
    description: "The text of the new note. It can contain newlines.",
    schema: { type: "string" },
  }]);
  assert.deepEqual(add["x-sausage-params"], {
    name: "AddParams",
    description: "The params of `add`.",
  });
  assert.deepEqual(add.result, {
    name: "added",
    schema: {
      $ref: "#/$defs/Added",
      $defs: {
        Added: {
          type: "object",
          description: "The result of `add`.",
          properties: {
            count: {
              type: "integer",
              minimum: 0,
              maximum: 4294967295,
              description: "The number of notes after the call, with the new note.",
            },
          },
          required: ["count"],
        },
      },
    },
  });
  assert.equal(list.summary, "List all notes, the oldest first.");
  assert.equal(list.description, undefined);
  assert.deepEqual(list.params, []);
  assert.deepEqual(list.result.schema, { type: "array", items: { type: "string" } });
  assert.deepEqual(doc["x-sausage-endpoints"], {});
  assert.deepEqual(doc["x-sausage-imports"], {});
});

test("an unknown method is -32601, bad params are -32602 naming the field, method errors keep their code", async (h) => {
  const none = await h.call("notes.nope");
  assert.equal(none.error?.code, -32601);
  assert.match(none.error!.message, /notes has no method nope/);
  const bad = await h.call("notes.add", { txt: "milk" });
  assert.equal(bad.error?.code, -32602);
  assert.match(bad.error!.message, /invalid params of add: "text" is required/);
  const fail = await h.call("sdkprobe.fail", { code: -32042, message: "asked to fail" });
  assert.deepEqual(fail.error, {
    code: -32042,
    message: "asked to fail",
    data: { message: "asked to fail" },
  });
});

test("schemas: integer ranges, string enums with renames, maps, optional fields", async (h) => {
  const doc = await h.result<Doc>("sdkprobe.rpc.discover");
  assert.deepEqual(validateOpenRpc(doc), []);
  const shapes = doc.methods.find((m) => m.name === "shapes")!;
  const defs = shapes.params[0].schema.$defs as Record<string, Record<string, unknown>>;
  assert.deepEqual(shapes.params[0].schema.$ref, "#/$defs/Shapes");
  const props = defs.Shapes.properties as Record<string, unknown>;
  assert.deepEqual(props.port, {
    type: "integer",
    minimum: 0,
    maximum: 65535,
    description: "A port.",
  });
  assert.deepEqual(props.kind, { $ref: "#/$defs/Kind", description: "A kind." });
  assert.deepEqual(props.names, {
    type: "object",
    additionalProperties: { type: "string" },
    description: "Names by id.",
  });
  assert.deepEqual(props.ratio, { type: ["number", "null"], description: "An optional ratio." });
  assert.deepEqual(defs.Shapes.required, ["port", "kind", "names"]);
  assert.deepEqual(defs.Kind, {
    oneOf: [
      { type: "string", const: "small", description: "Small." },
      { type: "string", const: "large_thing", description: "Large." },
    ],
    description: "A kind of thing, to see enums in schemas.",
  });
  const shapesValue = { port: 8080, kind: "large_thing", names: { a: "b" }, ratio: null };
  assert.deepEqual(await h.result("sdkprobe.shapes", { shapes: shapesValue }), shapesValue);
  const relay = doc.methods.find((m) => m.name === "relay")!;
  assert.deepEqual(relay.params.map((p) => [p.name, p.required]), [["call", true], [
    "detach",
    false,
  ]]);
  assert.equal(relay.summary, "Make one call and report its result and its notifications.");
  assert.equal(relay.description, "Errors of the call are reported, not returned.");
  const endpoint = doc["x-sausage-endpoints"].counter;
  assert.deepEqual(endpoint.methods.map((m) => m.name), ["add", "total", "stop"]);
  assert.equal(
    doc.info.description,
    "sdkprobe: each method exercises one part of the SDK runtime, for the\nhost-level tests in `tests/sdk_test.ts`.",
  );
});

test("call() makes nested calls; ctx.notify reaches the caller's on_notify", async (h) => {
  const r = await h.result<{ result: unknown; notes: [string, unknown][] }>("sdkprobe.relay", {
    call: { method: "sdkprobe.progress", params: { count: 3 } },
  });
  assert.equal(r.result, 3);
  assert.deepEqual(r.notes, [["progress", { i: 0 }], ["progress", { i: 1 }], ["progress", {
    i: 2,
  }]]);
  const err = await h.result<{ error: { code: number } }>("sdkprobe.relay", {
    call: { method: "nothere.x", params: {} },
  });
  assert.equal(err.error.code, -32001);
  // To the console caller, the same notifications come as core.notify.
  h.notes.length = 0;
  const direct = await h.call("sdkprobe.progress", { count: 2 });
  assert.equal(direct.result, 2);
  assert.deepEqual(h.notes.map((n) => (n as unknown as { params: { name: string } }).params.name), [
    "progress",
    "progress",
  ]);
});

test("many calls in flight: answers in any order go to the right call", async (h) => {
  const calls = [60, 5, 30].map((ms) => ({ method: "sdkprobe.sleepy", params: { ms } }));
  const started = Date.now();
  assert.deepEqual(await h.result("sdkprobe.fanout", { calls }), [60, 5, 30]);
  // No call waited for another to end (a hang or a queue would): bound scaled by the load.
  const bound = 2000 * loadFactor().factor;
  assert.ok(Date.now() - started < bound, `${Date.now() - started} ms, bound ${bound}`);
});

test("a detached call returns the result and its process outlives the caller", async (h) => {
  const path = "/state/sdkprobe/detached.txt";
  const r = await h.result<{ result: unknown }>("sdkprobe.relay", {
    call: { method: "sdkprobe.later", params: { path, ms: 300 } },
    detach: true,
  });
  assert.equal(r.result, path);
  await eventually(async () => {
    try {
      return await Deno.readTextFile(`${h.root}${path}`) === "done";
    } catch {
      return false;
    }
  }, "the detached process to write its file");
});

test("background() keeps the process alive after its answer until the task ends", async (h) => {
  const r = await h.call("sdkprobe.later", { path: "/state/sdkprobe/later.txt", ms: 200 });
  assert.equal(r.result, "/state/sdkprobe/later.txt");
  const running = h.host.table.all().filter((p) => p.plugin === "sdkprobe");
  assert.equal(running.length, 1, "the process still runs its background task");
  await eventually(
    () => h.host.table.all().every((p) => p.plugin !== "sdkprobe"),
    "the process to end",
  );
  assert.equal(await Deno.readTextFile(`${h.root}/state/sdkprobe/later.txt`), "done");
});

test("lock(path).try_now() does not wait; .keep() holds the lock until the process ends", async (h) => {
  const path = "/state/sdkprobe/lock";
  const holder = h.result<string>("sdkprobe.keep_lock", { path, hold_ms: 400 });
  const pid = await holder;
  assert.equal(
    await h.result("sdkprobe.try_lock", { path }),
    false,
    "the lock is kept after the answer",
  );
  await eventually(() => !h.host.table.get(pid), "the holder to end");
  assert.equal(
    await h.result("sdkprobe.try_lock", { path }),
    true,
    "the core released it at the end",
  );
});

test("listen() serves an endpoint; connect() checks owner and interface; stop ends the server after its answer", async (h) => {
  const pid = await h.result<string>("sdkprobe.serve", { path: "/self/counter" });
  const path = `/proc/${pid}/counter`;
  assert.equal(await h.result("sdkprobe.owner", { path }), pid);
  const calls = [
    { method: "add", params: { n: 2 } },
    { method: "add", params: { n: 3 } },
    { method: "total", params: {} },
  ];
  assert.deepEqual(await h.result("sdkprobe.client", { path, interface: "counter", calls }), [
    2,
    5,
    5,
  ]);
  // The state lives in the serving process: a second connection sees it.
  assert.deepEqual(await h.result("sdkprobe.client", { path, calls: [{ method: "total" }] }), [5]);
  const discover = await h.result<Doc[]>("sdkprobe.client", {
    path,
    calls: [{ method: "rpc.discover" }],
  });
  assert.deepEqual(discover[0].methods.map((m) => m.name), ["add", "total", "stop"]);

  const wrong = await h.call("sdkprobe.client", { path, interface: "control", calls: [] });
  assert.match(wrong.error!.message, /serves the interface counter, not control/);
  const unknown = await h.call("sdkprobe.client", { path, calls: [{ method: "nope" }] });
  assert.match(
    unknown.error!.message,
    /the endpoint interface counter of sdkprobe has no method nope/,
  );

  assert.deepEqual(await h.result("sdkprobe.client", { path, calls: [{ method: "stop" }] }), [
    null,
  ]);
  await eventually(() => !h.host.table.get(pid), "the server to end after stop");
  const stale = await h.call("sdkprobe.client", { path, calls: [] });
  assert.ok(stale.error, "no endpoint after its owner ended");
});

test("a singleton endpoint in /run: the file names the owner; a stale file is refused", async (h) => {
  const pid = await h.result<string>("sdkprobe.serve", { path: "/run/probe-counter" });
  assert.deepEqual(
    await h.result("sdkprobe.client", {
      path: "/run/probe-counter",
      calls: [{ method: "add", params: { n: 1 } }],
    }),
    [1],
  );
  await h.result("core.stop", { pid });
  const stale = await h.call("sdkprobe.client", { path: "/run/probe-counter", calls: [] });
  assert.match(
    stale.error!.message,
    new RegExp(`the endpoint /run/probe-counter is stale: its owner ${pid} has ended`),
  );
});

test("import!: typed clients of notes and www (with its endpoint), and x-sausage-imports", async (h) => {
  assert.equal(await h.result("consumer.note", { text: "milk" }), 1);
  assert.equal(await h.result("consumer.note", { text: "eggs" }), 2);
  assert.deepEqual(await h.result("consumer.notes"), ["milk", "eggs"]);
  assert.equal(await h.result("consumer.serve", { port: freePort() }), 0);
  await eventually(() => h.host.table.all().every((p) => p.plugin !== "www"), "www to stop");

  const doc = await h.result<Doc>("consumer.rpc.discover");
  assert.deepEqual(validateOpenRpc(doc), []);
  const imports = doc["x-sausage-imports"] as Record<
    string,
    { methods: MethodDoc[]; endpoints?: Record<string, unknown> }
  >;
  assert.deepEqual(Object.keys(imports), ["notes", "www"]);
  assert.deepEqual(imports.notes.methods.map((m) => m.name), ["add", "list"]);
  assert.deepEqual(Object.keys(imports.www.endpoints ?? {}), ["control"]);
});

test("the consumer's imports/*.json are the current rpc.discover of notes and www", async (h) => {
  for (const name of ["notes", "www"]) {
    const file = `${ROOT}/examples/consumer/imports/${name}.json`;
    assert.deepEqual(
      parseExact(await Deno.readTextFile(file)),
      await h.result(`${name}.rpc.discover`),
      `${file} is out of date: copy the rpc.discover document of ${name} there`,
    );
  }
});

test("an attached server stops at once at EOF on stdin when its caller ends", async (h) => {
  const r = await h.result<{ result: string }>("sdkprobe.relay", {
    call: { method: "sdkprobe.serve", params: { path: "/self/counter" } },
  });
  const pid = r.result;
  const started = Date.now();
  await eventually(() => !h.host.table.get(pid), "the attached server to end with its caller");
  assert.ok(Date.now() - started < 4000, "it ended at EOF, before the core's kill");
  const log = await h.result<{ line: string }[]>("core.log", { pid, limit: 100 });
  assert.ok(log.some((e) => e.line.includes('"event":"exit","status":0')), JSON.stringify(log));
});

Deno.test({
  name:
    "cargo test in examples/notes runs through sausage test and reports each test (#[test] and #[sausage_plugin::test])",
  ...opts,
  async fn() {
    const r = await cargoTest(`${ROOT}/examples/notes`);
    assert.deepEqual([r.passed, r.failed], [2, 0], r.output);
    assert.match(r.output, /^test tests::add_appends_and_counts \.\.\. ok$/m);
    assert.match(r.output, /^test tests::list_is_empty_without_a_file \.\.\. ok$/m);
    assert.match(r.output, /^test result: ok\. 2 passed; 0 failed/m);
  },
});

Deno.test({
  name: "an imported method that the plugin does not use is a compiler warning on its import! line",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "consumer-" });
  for (const sub of ["src", "imports"]) await Deno.mkdir(`${dir}/${sub}`);
  const src = `${ROOT}/examples/consumer`;
  for (const f of ["Cargo.toml", "imports/notes.json", "imports/www.json"]) {
    await Deno.copyFile(`${src}/${f}`, `${dir}/${f}`);
  }
  const main = await Deno.readTextFile(`${src}/src/main.rs`);
  assert.ok(main.includes("notes::list().await"));
  await Deno.writeTextFile(`${dir}/src/main.rs`, main.replace("notes::list().await", "Ok(vec![])"));
  const r = await buildPlugin(dir, `${dir}/out.wasm`);
  const warning = r.warnings.find((w) => w.includes("function `list` is never used"));
  assert.ok(warning, r.warnings.join("\n"));
  assert.match(warning, /import!\("notes"\)/);
  assert.ok(
    !r.warnings.some((w) => w.includes("`add` is never used")),
    "used methods give no warning",
  );
  await Deno.remove(dir, { recursive: true });
});
