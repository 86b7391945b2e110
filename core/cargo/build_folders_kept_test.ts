import { strict as assert } from "node:assert";
import {
  buildsKept,
  DEFAULT_BUILDS_KEPT,
  foldersToRemove,
  GONE_MS,
  IN_USE_MS,
  markUsed,
  trimBuildFolders,
} from "./build_folders_kept.ts";

/** A build folder `name` of `kindDir` for the world `world`, last used `ago` ms before `now`. */
function folder(kindDir: string, name: string, world: string, now: number, ago: number): string {
  const base = `${kindDir}/${name}`;
  markUsed(base, world);
  Deno.mkdirSync(`${base}/target/debug`, { recursive: true });
  Deno.writeTextFileSync(`${base}/target/debug/dep.rlib`, "x");
  const t = new Date(now - ago);
  Deno.utimeSync(`${base}/world`, t, t);
  return base;
}

Deno.test("a gone world's build folder goes once unused a while; a live world's stays", async () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const kind = `${tmp}/builds/offline-wasip1`;
    const live = `${tmp}/live-world`;
    Deno.mkdirSync(live);
    const now = Date.now();
    const kept = folder(kind, "a", live, now, 5 * IN_USE_MS);
    const goneOld = folder(kind, "b", `${tmp}/removed-world`, now, GONE_MS + 60_000);
    const goneNew = folder(kind, "c", `${tmp}/removed-world-2`, now, GONE_MS - 60_000);
    assert.deepEqual(foldersToRemove(kind, now, 10), [goneOld]);
    assert.deepEqual(await trimBuildFolders(kind, 10), [goneOld]);
    assert.ok(Deno.statSync(kept).isDirectory);
    assert.ok(Deno.statSync(goneNew).isDirectory);
    assert.throws(() => Deno.statSync(goneOld), Deno.errors.NotFound);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("past the bound the least recently used go, but never one used within the hour", () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const kind = `${tmp}/builds/offline-wasip1`;
    const now = Date.now();
    const worlds = ["w1", "w2", "w3", "w4"].map((w) => {
      Deno.mkdirSync(`${tmp}/${w}`);
      return `${tmp}/${w}`;
    });
    folder(kind, "newest", worlds[0], now, 1_000);
    folder(kind, "recent", worlds[1], now, IN_USE_MS / 2);
    const old = folder(kind, "old", worlds[2], now, 2 * IN_USE_MS);
    const oldest = folder(kind, "oldest", worlds[3], now, 3 * IN_USE_MS);
    // Two kept: "old" and "oldest" are past it and unused for over an hour.
    assert.deepEqual(foldersToRemove(kind, now, 2).sort(), [old, oldest].sort());
    // One kept: "recent" is past it too, but was used within the hour.
    assert.deepEqual(foldersToRemove(kind, now, 1).sort(), [old, oldest].sort());
    assert.deepEqual(foldersToRemove(kind, now, 4), []);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("a folder from before the bound (no world file) counts by its own time", () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const kind = `${tmp}/builds/offline-wasip1`;
    const legacy = `${kind}/legacy`;
    Deno.mkdirSync(legacy, { recursive: true });
    const now = Date.now();
    const t = new Date(now - 2 * IN_USE_MS);
    Deno.utimeSync(legacy, t, t);
    Deno.mkdirSync(`${tmp}/w`);
    folder(kind, "current", `${tmp}/w`, now, 0);
    assert.deepEqual(foldersToRemove(kind, now, 1), [legacy]);
    assert.deepEqual(foldersToRemove(kind, now, 2), []);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("SAUSAGE_BUILDS_KEPT sets the bound; nonsense is the default", () => {
  const before = Deno.env.get("SAUSAGE_BUILDS_KEPT");
  try {
    Deno.env.set("SAUSAGE_BUILDS_KEPT", "3");
    assert.equal(buildsKept(), 3);
    for (const bad of ["0", "-1", "2.5", "many"]) {
      Deno.env.set("SAUSAGE_BUILDS_KEPT", bad);
      assert.equal(buildsKept(), DEFAULT_BUILDS_KEPT, bad);
    }
  } finally {
    if (before === undefined) Deno.env.delete("SAUSAGE_BUILDS_KEPT");
    else Deno.env.set("SAUSAGE_BUILDS_KEPT", before);
  }
});
