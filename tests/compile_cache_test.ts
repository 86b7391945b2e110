/**
 * The compile cache (section 16): real components transpiled into a fresh
 * cache folder, hits and misses, damaged entries, eviction, and
 * `--cache-dir` through the CLI.
 */

import { strict as assert } from "node:assert";
import { builtTestPlugin } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { ComponentCache, engineIdentity } from "../core/cache/component_cache.ts";
import { evict, listEntries } from "../core/cache/cache_entries.ts";
import { Host } from "../core/host.ts";
import { WorldClient } from "../core/control/world_client.ts";

const probe = await builtTestPlugin("probe");
const fsprobe = await builtTestPlugin("fsprobe");
const launcher = new URL("../sausage", import.meta.url).pathname;
const opts = { sanitizeOps: false, sanitizeResources: false };

/** A test with a fresh cache folder, removed at the end. */
function cacheTest(name: string, fn: (cache: string) => Promise<void>): void {
  Deno.test({ name, ...opts }, async () => {
    const cache = await Deno.makeTempDir({ prefix: "sausage-cache-" });
    try {
      await fn(cache);
    } finally {
      await Deno.remove(cache, { recursive: true });
    }
  });
}

async function mtimeOf(path: string): Promise<number> {
  return (await Deno.stat(path)).mtime!.getTime();
}

cacheTest("a hit after a miss; another file or another engine is a miss", async (cache) => {
  const first = await new ComponentCache(cache).load(probe);
  const manifest = `${first.dir}/manifest.json`;
  const made = await mtimeOf(manifest);
  const again = await new ComponentCache(cache).load(probe); // a new host: no memory of it
  assert.equal(again.dir, first.dir);
  assert.equal(await mtimeOf(manifest), made, "a hit: nothing transpiled again");
  const other = await new ComponentCache(cache).load(fsprobe);
  assert.notEqual(other.dir, first.dir, "another file is another entry");
  const plain = await new ComponentCache(cache, undefined, false).load(probe);
  assert.notEqual(plain.dir, first.dir, "another engine is another entry");
  assert.match(engineIdentity(true), /jco 1\.12\.0, deno .*, v8 .*, format \d+, preempt \d+/);
  assert.equal((await listEntries(cache)).length, 3);
});

cacheTest("a truncated, corrupted or foreign entry is a miss and is made again", async (cache) => {
  const { dir, engine } = await new ComponentCache(cache).load(probe);
  const core = `${dir}/${engine === "p1" ? "main.wasm" : "plugin.core.wasm"}`;
  const size = (await Deno.stat(core)).size;
  // Truncated.
  await Deno.truncate(core, 100);
  assert.equal((await new ComponentCache(cache).load(probe)).dir, dir);
  assert.equal((await Deno.stat(core)).size, size, "made again");
  // Corrupted, same size.
  const bytes = await Deno.readFile(core);
  bytes.fill(0, 1000, 2000);
  await Deno.writeFile(core, bytes);
  await new ComponentCache(cache).load(probe);
  assert.notEqual((await Deno.readFile(core))[1500], 0, "made again");
  // Made by another engine (its manifest says so).
  const m = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
  await Deno.writeTextFile(`${dir}/manifest.json`, JSON.stringify({ ...m, engine: "other" }));
  await new ComponentCache(cache).load(probe);
  assert.notEqual(JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`)).engine, "other");
  // A half-written entry (no manifest): a miss too; and a real call works from the result.
  await Deno.remove(`${dir}/manifest.json`);
  const world = await makeWorld({ plugins: { probe } });
  const host = new Host(world, { sandboxes: 1, watch: false, cacheDir: cache });
  await host.start();
  try {
    const r = await WorldClient.of(host, "t").send("probe.echo", { x: 1 });
    assert.deepEqual(r.result, { x: 1 });
  } finally {
    await host.shutdown(100);
  }
});

cacheTest("eviction keeps the cache within its bound, least recently used first", async (cache) => {
  const a = await new ComponentCache(cache).load(probe);
  const b = await new ComponentCache(cache).load(fsprobe);
  const c = await new ComponentCache(cache, undefined, false).load(fsprobe);
  const hour = 3_600_000;
  // a used longest ago, then c, then b; all over a minute ago (not in use).
  for (const [dir, ago] of [[a.dir, 3 * hour], [c.dir, 2 * hour], [b.dir, hour]] as const) {
    const t = new Date(Date.now() - ago);
    await Deno.utime(dir, t, t);
  }
  const entries = await listEntries(cache);
  const total = entries.reduce((n, e) => n + e.size, 0);
  const sizeOf = (dir: string) => entries.find((e) => e.path === dir)!.size;
  const bound = total - sizeOf(a.dir) - 1; // room for b and c, less one byte
  const removed = await evict(cache, bound);
  assert.deepEqual(removed.map((e) => e.path), [a.dir, c.dir], "oldest first, until within");
  const left = await listEntries(cache);
  assert.deepEqual(left.map((e) => e.path), [b.dir]);
  assert.ok(left.reduce((n, e) => n + e.size, 0) <= bound);
  // A recently used entry stays even past the bound (a host may be loading it).
  const fresh = await new ComponentCache(cache).load(probe);
  assert.deepEqual((await evict(cache, 1)).map((e) => e.path), [b.dir]);
  assert.deepEqual((await listEntries(cache)).map((e) => e.path), [fresh.dir]);
});

cacheTest("--cache-dir is honoured by every command; cache list and clear", async (cache) => {
  const world = await makeWorld({ plugins: { probe } });
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(launcher, { args, stdout: "piped", stderr: "piped" })
      .output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  const call = await run("call", world, "probe.noop", "--cache-dir", cache);
  assert.equal(call.code, 0, call.stderr);
  const list = await run("--cache-dir", cache, "cache", "list", "--json");
  const listed = JSON.parse(list.stdout) as { folder: string; entries: unknown[] };
  assert.equal(listed.folder, cache);
  assert.equal(listed.entries.length, 1, "the call's component went into --cache-dir");
  const clear = await run("cache", "clear", `--cache-dir=${cache}`);
  assert.match(clear.stdout, /cleared/);
  assert.equal((await listEntries(cache)).length, 0);
  assert.equal((await run("cache", "frob")).code, 2);
});
