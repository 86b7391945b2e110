/**
 * The client generator as a plugin (`sdk/codegen-plugin`, built from Rust
 * source into a real component) in a real host: `codegen.client` returns
 * exactly the golden clients of `sdk/sausage-plugin-codegen`, so the file the
 * host serves at `/proc/core/plugins/<name>/client.rs` and the code that
 * `import!` generates are the same bytes.
 */

import { strict as assert } from "node:assert";
import { buildPlugin } from "../core/build/cargo_build.ts";
import { cacheDir } from "../core/paths.ts";
import { TestHost } from "./helpers/host.ts";

const SDK = decodeURIComponent(new URL("../sdk", import.meta.url).pathname);
const PLUGIN_DIR = `${SDK}/codegen-plugin`;
const GOLDEN = `${SDK}/sausage-plugin-codegen/tests/golden`;
/** The crates whose source makes the plugin: it and the generator it depends on by path. */
const SOURCES = [PLUGIN_DIR, `${SDK}/sausage-plugin-codegen`];
/** Bump to throw away the cached builds (e.g. when the build changes). */
const BUILD_SALT = "sausage-codegen-plugin-1";

const codegen = await builtCodegen();
const opts = { sanitizeOps: false, sanitizeResources: false };

function test(name: string, fn: (h: TestHost) => Promise<void>) {
  Deno.test({
    name,
    ...opts,
    async fn() {
      const h = await TestHost.start({ plugins: { codegen } });
      try {
        await fn(h);
      } finally {
        await h.close();
      }
    },
  });
}

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

/**
 * Builds `sdk/codegen-plugin` into a component, or takes the build in the
 * cache made from the same source (the plugin's and the generator's files).
 */
async function builtCodegen(): Promise<string> {
  const parts = [BUILD_SALT];
  for (const dir of SOURCES) {
    for (const rel of await filesOf(dir)) {
      parts.push(
        `${dir.slice(SDK.length)}/${rel}\n${await sha256Hex(await Deno.readFile(`${dir}/${rel}`))}`,
      );
    }
  }
  const hash = (await sha256Hex(new TextEncoder().encode(parts.join("\n")))).slice(0, 16);
  const out = `${cacheDir()}/test-plugins/codegen-${hash}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* not built yet */ }
  await buildPlugin(PLUGIN_DIR, out);
  return out;
}

/** The files under `root`, relative and sorted, less `target/`, `Cargo.lock` and dot entries. */
async function filesOf(root: string, sub = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(sub ? `${root}/${sub}` : root)) {
    if (e.name.startsWith(".") || e.name === "Cargo.lock" || (!sub && e.name === "target")) {
      continue;
    }
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory) names.push(...await filesOf(root, rel));
    else if (e.isFile) names.push(rel);
  }
  return names.sort();
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
