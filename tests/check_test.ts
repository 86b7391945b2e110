/**
 * `sausage check <plugin.wasm>`: a file's imports and whether this host
 * binds them, its engine, its memory, and its `rpc.discover` document, on
 * real plugins: C modules built from source and Rust components.
 */

import { strict as assert } from "node:assert";
import { sausage } from "./helpers/cli.ts";
import { builtCPlugin } from "./helpers/c_plugins.ts";
import { ifaceVersion } from "./helpers/iface.ts";
import { Added, addMethod, doc } from "../rpc/testdata/notes_documents.ts";
import type { CheckReport } from "../cli/check.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

async function check(file: string, ...more: string[]) {
  const r = await sausage("check", file, "--json", ...more);
  return { code: r.code, report: JSON.parse(r.stdout) as CheckReport, stderr: r.stderr };
}

Deno.test(
  { name: "check: a C module without a document runs on p1 and can be activated", ...opts },
  async () => {
    const { code, report } = await check(await builtCPlugin("undocumented"), "--as", "echo");
    assert.equal(code, 0);
    assert.equal(report.kind, "module");
    assert.equal(report.engine, "p1");
    assert.equal(report.plugin, "echo");
    assert.ok(report.imports.length > 3);
    assert.ok(
      report.imports.every((i) => i.boundBy === "preview1"),
      JSON.stringify(report.imports),
    );
    assert.ok(report.imports.some((i) => i.name === "path_open"));
    assert.ok(report.memory!.initialPages >= 1);
    assert.equal(report.document?.status, "none");
    assert.equal(report.activatable, true);
    const text = await sausage("check", await builtCPlugin("undocumented"));
    assert.match(text.stdout, /engine: p1: a core module that imports only WASI preview 1/);
    assert.match(text.stdout, /rpc.discover: no document \(it answered rpc.discover with -32601/);
    assert.match(text.stdout, /can be a plugin here/);
  },
);

Deno.test(
  { name: "check: a module that crashes on rpc.discover cannot be activated", ...opts },
  async () => {
    const { code, report } = await check(await builtCPlugin("undocumented", ["DISCOVER_TRAPS"]));
    assert.equal(code, 1);
    assert.equal(report.document?.status, "failed");
    assert.equal(report.activatable, false);
  },
);

Deno.test({
  name: "check: a core module importing what no host binds is named, and not run",
  ...opts,
}, async () => {
  const r = await sausage("check", await builtCPlugin("imports_env"));
  assert.equal(r.code, 1);
  assert.match(r.stdout, /env\.host_thing \(function\): NOT BOUND here/);
  assert.match(r.stdout, /engine: none: a core module that imports env\.host_thing/);
  assert.match(r.stdout, /rpc.discover: not run/);
  const junk = `${await Deno.makeTempDir()}/junk.wasm`;
  await Deno.writeTextFile(junk, "not wasm");
  const j = await sausage("check", junk);
  assert.equal(j.code, 1);
  assert.match(j.stderr, /junk.wasm is not a plugin: not a WebAssembly file/);
});

Deno.test(
  { name: "check: a Rust component's valid document and an invalid one", ...opts },
  async () => {
    const good = await ifaceVersion(
      doc("notes", [addMethod("text")], { components: { schemas: { Added } } }, "1"),
    );
    const { code, report } = await check(good, "--as", "notes");
    assert.equal(code, 0);
    assert.equal(report.kind, "component");
    assert.equal(report.document?.status, "valid");
    assert.deepEqual(report.document?.status === "valid" && report.document.methods, ["add"]);
    const bad = await ifaceVersion({
      openrpc: "1.2.6",
      info: { title: "notes" },
      methods: [{ name: "add", result: { name: "added", schema: {} } }],
    });
    const b = await check(bad, "--as", "notes");
    assert.equal(b.code, 1);
    assert.equal(b.report.document?.status, "invalid");
  },
);
