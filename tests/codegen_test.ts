/**
 * The client generator as a plugin (`sdk/codegen-plugin`, built from Rust
 * source into a real component) in a real host: `codegen.client` returns
 * exactly the golden clients of `sdk/sausage-plugin-codegen`, so the file the
 * host serves at `/proc/core/plugins/<name>/client.rs` and the code that
 * `import!` generates are the same bytes.
 */

import { strict as assert } from "node:assert";
import { cachedBuild } from "../core/cargo/cached_build.ts";
import { hostTests, TestHost } from "./helpers/host.ts";
import { ifaceVersion } from "./helpers/iface.ts";

const SDK = decodeURIComponent(new URL("../sdk", import.meta.url).pathname);
const PLUGIN_DIR = `${SDK}/codegen-plugin`;
const GOLDEN = `${SDK}/sausage-plugin-codegen/tests/golden`;
const codegen = await cachedBuild(PLUGIN_DIR, "codegen", "codegen");
const opts = { sanitizeOps: false, sanitizeResources: false };

const test = hostTests({ plugins: { codegen } });

async function golden(name: string): Promise<{ document: unknown; source: string }> {
  return {
    document: JSON.parse(await Deno.readTextFile(`${GOLDEN}/${name}.json`)),
    source: await Deno.readTextFile(`${GOLDEN}/${name}.rs`),
  };
}

for (const name of ["notes", "www", "kitchen-sink"]) {
  test(`codegen.client gives the golden ${name} client, byte for byte`, async (h) => {
    const { document, source } = await golden(name);
    const generated = await h.result<string>("codegen.client", { name, document });
    assert.equal(generated, source);
  });
}

test("codegen.client also takes the document as JSON text", async (h) => {
  const { document, source } = await golden("notes");
  const text = JSON.stringify(document, null, 2);
  assert.equal(await h.result("codegen.client", { name: "notes", document: text }), source);
});

test("a document that cannot be used is -32602 with the generator's message", async (h) => {
  const r = await h.call("codegen.client", { name: "notes", document: { openrpc: "1.2.6" } });
  assert.deepEqual(r.error, {
    code: -32602,
    message: 'cannot generate the client of notes: the document has no "methods"',
  });
  const missing = await h.call("codegen.client", { document: {} });
  assert.equal(missing.error?.code, -32602);
  assert.match(missing.error?.message ?? "", /needs "name"/);
});

test("codegen answers rpc.discover with its client method", async (h) => {
  const doc = await h.result<{ methods: { name: string }[] }>("codegen.rpc.discover");
  assert.deepEqual(doc.methods.map((m) => m.name), ["client"]);
});

Deno.test({
  name: "the host serves /proc/core/plugins/<name>/client.rs: the golden client of its document",
  ...opts,
}, async () => {
  const { document, source } = await golden("notes");
  const notes = await ifaceVersion(document);
  const h = await TestHost.start({ plugins: { notes } });
  try {
    const served = new TextDecoder().decode(
      await h.host.fs.read("/proc/core/plugins/notes/client.rs"),
    );
    assert.equal(served, source);
    const discover = JSON.parse(
      new TextDecoder().decode(await h.host.fs.read("/proc/core/plugins/notes/discover.json")),
    );
    assert.deepEqual(discover, document);
  } finally {
    await h.close();
  }
});
