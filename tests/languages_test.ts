/**
 * Plugins in other languages (docs/languages.md): `sausage new --lang c` and
 * `--lang assemblyscript` make plugins that build with their own toolchains
 * (clang + wasi-libc, asc + the WASI shim) into preview-1 modules, which
 * are activated, called, and listed with their methods.
 */

import { strict as assert } from "node:assert";
import { CHECKOUT, sausage } from "./helpers/cli.ts";
import { TestHost } from "./helpers/host.ts";
import { makeWorld } from "./helpers/world.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const dec = new TextDecoder();

/** Runs a command in `cwd`; throws with its output when it fails. */
async function run(cwd: string, cmd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = dec.decode(out.stdout) + dec.decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed:\n${text}`);
  return text;
}

/** Activates the plugin's build, then checks its methods and a greeting, twice. */
async function activateAndGreet(root: string, plugin: string): Promise<TestHost> {
  const h = await TestHost.open(root);
  const docs = await h.result<Record<string, { methods: { name: string }[] }>>(
    "core.activate",
    { plugin, wasm: `/plugins/${plugin}/source/build/${plugin}.wasm` },
  );
  assert.deepEqual(docs[plugin].methods.map((m) => m.name), ["greet"]);
  assert.equal(await h.result(`${plugin}.greet`, { name: "Ada" }), "Hello, Ada!");
  assert.equal(await h.result(`${plugin}.greet`), "Hello, world!");
  const wrong = await h.call(`${plugin}.nope`);
  assert.equal(wrong.error?.code, -32601);
  return h;
}

Deno.test(
  { name: "new --lang c: a C plugin that builds, activates and answers", ...opts },
  async () => {
    const root = await makeWorld({ files: { "config/boot.json": "[]" } });
    const made = await sausage("new", root, "greeter", "--lang", "c");
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /made the c plugin greeter/);
    assert.match(made.stdout, /build\.sh/);
    assert.match(
      await run(`${root}/plugins/greeter/source`, "./build.sh"),
      /built build\/greeter.wasm/,
    );
    const checked = await sausage("check", `${root}/plugins/greeter/source/build/greeter.wasm`);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /a valid document, 1 method: greet/);
    const h = await activateAndGreet(root, "greeter");
    try {
      // It counts its greetings in its state folder.
      assert.equal(await Deno.readTextFile(`${root}/state/greeter/greetings`), "2\n");
    } finally {
      await h.close();
    }
  },
);

Deno.test({
  name: "new --lang assemblyscript: an AssemblyScript plugin that builds, activates and answers",
  ...opts,
}, async () => {
  const root = await makeWorld({ files: { "config/boot.json": "[]" } });
  const made = await sausage("new", root, "asgreeter", "--lang", "assemblyscript");
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /npm install && npm run build/);
  const source = `${root}/plugins/asgreeter/source`;
  // What `npm install` gives it: the pinned assemblyscript and WASI shim (the checkout's own).
  await Deno.symlink(`${CHECKOUT}/node_modules`, `${source}/node_modules`);
  await run(source, "npm", "run", "build");
  const h = await activateAndGreet(root, "asgreeter");
  await h.close();
});

Deno.test({
  name: "new --lang: other languages are refused, and a world needs a plugin name",
  ...opts,
}, async () => {
  const root = await makeWorld({ files: { "config/boot.json": "[]" } });
  try {
    const bad = await sausage("new", root, "p", "--lang", "cobol");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--lang takes rust, ts, c, assemblyscript; not "cobol"/);
    const noPlugin = await sausage("new", `${root}/w2`, "--lang", "c");
    assert.equal(noPlugin.code, 2);
    assert.match(noPlugin.stderr, /--lang makes a plugin in a world/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
