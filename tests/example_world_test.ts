/**
 * The README's main command on a fresh copy of `examples/world`: the host
 * builds every plugin from source, boots `www` on its port, serves a page
 * from `state/www/`, and answers `notes.add`.
 */

import { strict as assert } from "node:assert";
import { eventually } from "./helpers/host.ts";
import { freePort } from "./helpers/net.ts";

const ROOT = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");

async function sausage(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(`${ROOT}/sausage`, { args, stdout: "piped", stderr: "piped" })
    .output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test({
  name: "sausage run examples/world builds, boots www, serves state/www and answers notes.add",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const world = await Deno.makeTempDir({ prefix: "example-world-" });
  // A copy as a fresh clone has it: sources (symlinks followed), no plugin.wasm, no state but the page.
  const cp = await new Deno.Command("cp", { args: ["-rL", `${ROOT}/examples/world/.`, world] })
    .output();
  assert.equal(cp.code, 0);
  for await (const e of Deno.readDir(`${world}/plugins`)) {
    await Deno.remove(`${world}/plugins/${e.name}/plugin.wasm`).catch(() => {});
  }
  // State that runs in the checkout left behind (untracked) is not part of a fresh clone.
  for await (const e of Deno.readDir(`${world}/state`)) {
    if (e.name !== "www") await Deno.remove(`${world}/state/${e.name}`, { recursive: true });
  }
  const port = freePort();
  await Deno.writeTextFile(
    `${world}/config/boot.json`,
    JSON.stringify([{ method: "www.start", params: { port } }]),
  );

  const host = new Deno.Command(`${ROOT}/sausage`, {
    args: ["run", world],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = host.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  (async () => {
    for (;;) {
      const { value, done } = await stderr.read();
      if (done) break;
      log += value;
    }
  })();
  try {
    const page = await eventually(
      async () => {
        try {
          const r = await fetch(`http://127.0.0.1:${port}/`);
          return r.ok && await r.text();
        } catch {
          return false;
        }
      },
      "the page from www",
      // Six plugins' tests and release builds in a new world's folder, before the boot calls.
      1_800_000,
    ).catch((e) => {
      throw new Error(`${e.message}; the host printed:\n${log}`);
    });
    assert.equal(page, await Deno.readTextFile(`${ROOT}/examples/world/state/www/index.html`));
    // Built as `sausage build` builds: tests first, then activated together (issue 36 item 3).
    const missing = log.match(/^sausage: (.*) have no plugin\.wasm: testing, building/m)?.[1] ?? "";
    for (const name of ["notes", "www", "secrets", "consumer"]) {
      assert.ok(missing.split(", ").includes(name), `${name} is built at start:\n${log}`);
      assert.match(log, new RegExp(`\\b${name}\\b.* (is|are) active`), "progress is shown");
    }
    const added = await sausage("call", world, "notes.add", '{"text":"milk"}');
    assert.equal(added.code, 0, added.stderr);
    assert.deepEqual(JSON.parse(added.stdout), { count: 1 });
    const via = await sausage("call", world, "consumer.notes");
    assert.deepEqual(JSON.parse(via.stdout), ["milk"]);
  } finally {
    host.kill("SIGTERM");
    await host.status;
  }
  await Deno.remove(world, { recursive: true });
});
