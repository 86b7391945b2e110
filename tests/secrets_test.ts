/**
 * Secrets (PROTOCOL 9.1) end to end, as the owner and a plugin use them: the
 * value set with `./sausage secret set` (on stdin), read by a real plugin
 * built from Rust source (`tests/plugins/secretprobe`, the SDK's `secret()`)
 * through `sausage call`, installed under two names so that one is granted
 * by `config/secrets.json` and the other is not. Then the world is searched,
 * every file of it (the journal's SQLite file and its -wal included), for the
 * value's bytes.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { type Ran, sausageWith } from "./helpers/cli.ts";
import { eventually } from "./helpers/host.ts";
import { startWith } from "./helpers/author.ts";
import { makeWorld } from "./helpers/world.ts";
import { secretsFilePath } from "../core/secrets/secrets_path.ts";

const probe = await builtTestPlugin("secretprobe");
const opts = { sanitizeOps: false, sanitizeResources: false };

/** `config/secrets.json` of the test worlds: `reader` may read both keys, `other` neither. */
const GRANTS = `{
  // reader is the only plugin that may read these
  "PROBE_KEY": {"plugins": ["reader"]},
  "UNSET_KEY": {"plugins": ["reader"]},
}
`;

/** A world with the probe as `reader` and as `other`, and a private secrets folder of its own. */
async function setUp() {
  const world = await makeWorld({
    plugins: { reader: probe, other: probe },
    files: { "config/secrets.json": GRANTS },
  });
  const secrets = await Deno.makeTempDir({ prefix: "sausage-secrets-" });
  const env = { SAUSAGE_SECRETS_DIR: `${secrets}/dir` };
  const run = (stdin: string | undefined, ...args: string[]) =>
    sausageWith({ env, stdin }, ...args);
  const file = await secretsFilePath(Deno.realPathSync(world), env.SAUSAGE_SECRETS_DIR);
  const cleanUp = async () => {
    await Deno.remove(world, { recursive: true });
    await Deno.remove(secrets, { recursive: true });
  };
  return { world, secrets, env, run, file, cleanUp };
}

/** What secretprobe's `read` answered: the value, or the error of `core.secret`. */
interface Outcome {
  value?: string | null;
  error?: { code: number; message: string; data?: Record<string, unknown> } | null;
}

/** Calls `<plugin>.read {name}` through `sausage call`; the probe's answer. */
async function read(
  run: (stdin: string | undefined, ...args: string[]) => Promise<Ran>,
  world: string,
  plugin: string,
  name: string,
): Promise<Outcome> {
  const r = await run(undefined, "call", world, `${plugin}.read`, JSON.stringify({ name }));
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A value no file could hold by chance. */
const newValue = () => `sk-test-${crypto.randomUUID()}`;

/** Every file under `dir` whose bytes contain `needle` (links are not followed). */
function filesHolding(dir: string, needle: string): string[] {
  const bytes = new TextEncoder().encode(needle);
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const path = `${d}/${e.name}`;
      if (e.isDirectory) walk(path);
      else if (e.isFile && contains(Deno.readFileSync(path), bytes)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

/** Whether `hay` holds the bytes of `needle`. */
function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = hay.indexOf(needle[0]); i !== -1; i = hay.indexOf(needle[0], i + 1)) {
    if (i + needle.length > hay.length) return false;
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** All files of the world, the journal and its -wal among them (so the search saw them). */
function worldFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      if (e.isDirectory) walk(`${d}/${e.name}`);
      else out.push(`${d}/${e.name}`);
    }
  };
  walk(dir);
  return out;
}

Deno.test({
  name:
    "a secret set with `sausage secret set` is read by the plugin config/secrets.json names, refused to others and for unknown names, listed without its value, and found nowhere in the world",
  ...opts,
}, async () => {
  const { world, run, file, secrets, cleanUp } = await setUp();
  try {
    const value = newValue();
    const set = await run(`${value}\n`, "secret", "set", world, "PROBE_KEY");
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stderr, /PROBE_KEY set for .*; reader may read it/);
    assert.ok(!set.stderr.includes(value) && !set.stdout.includes(value));

    // The granted plugin gets the value whole (the final newline of the pipe is not part of it).
    assert.deepEqual(await read(run, world, "reader", "PROBE_KEY"), { value, error: null });

    // A plugin that config/secrets.json does not list for it is refused, by name.
    const other = await read(run, world, "other", "PROBE_KEY");
    assert.equal(other.value, null);
    assert.equal(other.error?.code, -32006, JSON.stringify(other));
    assert.deepEqual(other.error?.data, {
      secret: "PROBE_KEY",
      plugin: "other",
      reason: "not-allowed",
    });
    assert.match(other.error!.message, /other may not read the secret PROBE_KEY/);

    // A name nobody lists, a listed name not set, a malformed name.
    const unknown = await read(run, world, "reader", "NOBODY_KEY");
    assert.equal(unknown.error?.code, -32006);
    assert.equal(unknown.error?.data?.reason, "not-allowed");
    assert.match(unknown.error!.message, /does not list the secret NOBODY_KEY/);
    const unset = await read(run, world, "reader", "UNSET_KEY");
    assert.equal(unset.error?.code, -32006);
    assert.equal(unset.error?.data?.reason, "not-set");
    assert.match(unset.error!.message, /sausage secret set <world> UNSET_KEY/);
    const malformed = await read(run, world, "reader", "../PROBE_KEY");
    assert.equal(malformed.error?.code, -32602);
    assert.match(malformed.error!.message, /is not a secret's name/);

    // Not from outside a process: the owner has `secret list`, not the value through a call.
    const direct = await run(undefined, "call", world, "core.secret", '{"name": "PROBE_KEY"}');
    assert.equal(direct.code, 1);
    assert.match(direct.stderr, /-32600/);
    assert.ok(!direct.stderr.includes(value));

    // list: names, set or not, readers; never the value.
    const list = await run(undefined, "secret", "list", world);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /PROBE_KEY +yes +reader/);
    assert.match(list.stdout, /UNSET_KEY +no +reader/);
    assert.ok(!list.stdout.includes(value) && !list.stderr.includes(value));
    const json = await run(undefined, "secret", "list", world, "--json");
    assert.deepEqual(JSON.parse(json.stdout), [
      { name: "PROBE_KEY", set: true, plugins: ["reader"] },
      { name: "UNSET_KEY", set: false, plugins: ["reader"] },
    ]);

    // The journal says who asked for what, and whether it was granted, without the value.
    const log = await run(undefined, "log", world, "--all", "-n", "1000", "--json");
    assert.equal(log.code, 0, log.stderr);
    assert.ok(!log.stdout.includes(value));
    const events = (JSON.parse(log.stdout) as { line: string }[])
      .filter((e) => e.line.startsWith("{"))
      .map((e) => JSON.parse(e.line) as Record<string, unknown>)
      .filter((e) => e.event === "secret");
    const reader = events.find((e) => e.plugin === "reader" && e.granted === true);
    assert.ok(reader, log.stdout);
    assert.deepEqual(Object.keys(reader).sort(), ["event", "granted", "name", "pid", "plugin"]);
    assert.ok(events.some((e) => e.plugin === "other" && e.granted === false), log.stdout);

    // Nowhere in the world: not the journal, its -wal, host.json, state/, config/.
    const files = worldFiles(world);
    assert.ok(files.some((f) => f.endsWith("state/core/journal.sqlite")), files.join("\n"));
    assert.deepEqual(filesHolding(world, value), []);
    // The owner's file holds it, 0600 in a 0700 folder, outside the world.
    assert.deepEqual(filesHolding(secrets, value), [file]);
    assert.equal((Deno.statSync(file).mode ?? 0) & 0o777, 0o600);
    assert.equal((Deno.statSync(`${secrets}/dir`).mode ?? 0) & 0o777, 0o700);

    // rm: the next call is refused as not set.
    const rm = await run(undefined, "secret", "rm", world, "PROBE_KEY");
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal((await read(run, world, "reader", "PROBE_KEY")).error?.data?.reason, "not-set");
  } finally {
    await cleanUp();
  }
});

Deno.test({
  name: "a set or rm while `sausage run` runs takes effect at the next call, without a restart",
  ...opts,
}, async () => {
  const { world, env, run, cleanUp } = await setUp();
  const host = startWith({ env }, "run", world, "--headless");
  const first = newValue(), second = newValue();
  try {
    await eventually(() => host.stderr().includes("sausage: running"), "the host to run", 180_000);
    assert.equal((await read(run, world, "reader", "PROBE_KEY")).error?.data?.reason, "not-set");
    assert.equal((await run(first, "secret", "set", world, "PROBE_KEY")).code, 0);
    assert.equal((await read(run, world, "reader", "PROBE_KEY")).value, first);
    assert.equal((await run(second, "secret", "set", world, "PROBE_KEY")).code, 0);
    assert.equal((await read(run, world, "reader", "PROBE_KEY")).value, second);
    assert.equal((await run(undefined, "secret", "rm", world, "PROBE_KEY")).code, 0);
    assert.equal((await read(run, world, "reader", "PROBE_KEY")).error?.data?.reason, "not-set");
    // The calls went through the running host, not a transient one of their own.
    const ps = await run(undefined, "ps", world);
    assert.match(ps.stderr, /sausage run/);
  } finally {
    host.child.kill("SIGTERM");
    assert.equal((await host.child.status).code, 0, host.stderr());
    await host.read;
  }
  try {
    assert.ok(!host.stderr().includes(first) && !host.stderr().includes(second));
    assert.deepEqual(filesHolding(world, first), []);
    assert.deepEqual(filesHolding(world, second), []);
  } finally {
    await cleanUp();
  }
});

Deno.test({
  name:
    "a link planted at the secrets file's place is never followed: set refuses it, core.secret refuses to read through it",
  ...opts,
}, async () => {
  const { world, secrets, run, file, cleanUp } = await setUp();
  try {
    const target = `${secrets}/elsewhere.json`;
    const planted = JSON.stringify({ secrets: { PROBE_KEY: "planted-value" } });
    Deno.writeTextFileSync(target, planted, { mode: 0o600 });
    Deno.mkdirSync(`${secrets}/dir`, { mode: 0o700 });
    Deno.symlinkSync(target, file);

    const value = newValue();
    const set = await run(value, "secret", "set", world, "PROBE_KEY");
    assert.equal(set.code, 1);
    assert.match(set.stderr, /is a link, not a file: refused/);
    assert.equal(Deno.readTextFileSync(target), planted, "nothing written through the link");
    assert.ok(Deno.lstatSync(file).isSymlink);

    const got = await read(run, world, "reader", "PROBE_KEY");
    assert.equal(got.value, null, "the planted value is not read");
    assert.equal(got.error?.code, -32006);
    assert.equal(got.error?.data?.reason, "unreadable");
    assert.match(got.error!.message, /is a link, not a file/);

    const list = await run(undefined, "secret", "list", world);
    assert.equal(list.code, 1);
    assert.match(list.stderr, /is a link, not a file/);
    assert.deepEqual(filesHolding(world, value), []);
  } finally {
    await cleanUp();
  }
});

Deno.test({
  name:
    "a bad config/secrets.json is reported with the file, the key and what was used; the host keeps answering",
  ...opts,
}, async () => {
  const { world, run, cleanUp } = await setUp();
  try {
    const value = newValue();
    assert.equal((await run(value, "secret", "set", world, "PROBE_KEY")).code, 0);
    await Deno.writeTextFile(
      `${world}/config/secrets.json`,
      '{"PROBE_KEY": {"plugins": ["reader", "Not A Plugin"]}, "bad-name": {"plugins": ["reader"]}}',
    );
    const r = await run(undefined, "call", world, "reader.read", '{"name": "PROBE_KEY"}');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /config\/secrets.json: "PROBE_KEY".plugins: .*"Not A Plugin".*ignored/);
    assert.match(r.stderr, /config\/secrets.json: "bad-name" is not a secret's name.*ignored/);
    assert.equal(JSON.parse(r.stdout).value, value, "the good part of the file applies");

    await Deno.writeTextFile(`${world}/config/secrets.json`, '{"PROBE_KEY": {"plugins": [');
    const broken = await run(undefined, "call", world, "reader.read", '{"name": "PROBE_KEY"}');
    assert.equal(broken.code, 0, broken.stderr);
    assert.match(broken.stderr, /config\/secrets.json:1:\d+: .*no plugin may read a secret/);
    const refused = JSON.parse(broken.stdout) as Outcome;
    assert.equal(refused.error?.data?.reason, "not-allowed");
    assert.match(refused.error!.message, /config\/secrets.json has problems/);
  } finally {
    await cleanUp();
  }
});
