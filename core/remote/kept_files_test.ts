/**
 * The files a worker keeps, as the host sees them: which opens may be
 * answered by one, what is kept (not a file changed in the last
 * `RACY_MS`), and what is dropped (any change, even of the same length in
 * the same clock tick; room for another; everything after a lost message).
 */

import { strict as assert } from "node:assert";
import { KEPT_FILES_MAX, KeptFiles, keptKey, RACY_MS } from "./kept_files.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import { READ_ONLY, type Stat } from "../../vfs/mount.ts";

const open = (path: string, opts: object = READ_ONLY) => ({ method: "open", args: [path, opts] });

/** A world with `files`, written more than `RACY_MS` ago. */
async function oldWorld(files: string[]): Promise<{ root: string; mount: DiskMount }> {
  const root = await Deno.makeTempDir();
  for (const f of files) await Deno.writeTextFile(`${root}/${f}`, "from the host");
  await new Promise((r) => setTimeout(r, RACY_MS + 50));
  return { root, mount: new DiskMount(root) };
}

/** Offers `path` as `FsServer` would: its stat, then its read. */
function offer(kept: KeptFiles, mount: DiskMount, path: string): boolean {
  const at = Date.now();
  const seen = mount.stat(path, true) as Stat;
  return kept.offer(keptKey(open(path))!, seen, at);
}

Deno.test("only a plain read-only open may be answered by a kept file", () => {
  assert.equal(keptKey(open("a.txt")), JSON.stringify(["a.txt", false]));
  assert.equal(keptKey(open("a.txt", { ...READ_ONLY, nofollow: true })), '["a.txt",true]');
  for (const o of ["write", "create", "exclusive", "truncate", "directory"]) {
    assert.equal(keptKey(open("a.txt", { ...READ_ONLY, [o]: true })), null, o);
  }
  assert.equal(keptKey(open("a.txt", { ...READ_ONLY, read: false })), null);
  assert.equal(keptKey({ method: "stat", args: ["a.txt", true] }), null);
  assert.equal(keptKey({ method: "open", args: ["a.txt"] }), null);
  assert.equal(keptKey(null), null);
});

Deno.test("a file changed in the last RACY_MS is not kept; an older one is", async () => {
  const { root, mount } = await oldWorld(["old.txt"]);
  try {
    await Deno.writeTextFile(`${root}/new.txt`, "just written");
    const kept = new KeptFiles(mount);
    assert.equal(kept.check(), "all", "first, the worker drops what it may have kept before");
    assert.equal(offer(kept, mount, "new.txt"), false);
    assert.equal(offer(kept, mount, "old.txt"), true);
    assert.equal(kept.size, 1);
    // Only plain names: the host's stat resolves them as the mount does.
    await Deno.mkdir(`${root}/d`);
    for (const odd of ["d/../old.txt", "./old.txt", "d//../old.txt"]) {
      assert.equal(
        kept.offer(keptKey(open(odd))!, mount.stat("old.txt", true) as Stat, Date.now()),
        false,
        odd,
      );
    }
    // A mount that is not a disk keeps nothing.
    assert.equal(
      new KeptFiles(new MemMount()).offer(
        keptKey(open("old.txt"))!,
        mount.stat("old.txt", true) as Stat,
        Date.now(),
      ),
      false,
    );
    assert.equal(kept.check(), null, "nothing changed");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a kept file rewritten with as many bytes at once, removed, or renamed over is dropped", async () => {
  const { root, mount } = await oldWorld(["a.txt", "b.txt", "c.txt", "d.txt"]);
  try {
    const kept = new KeptFiles(mount);
    kept.check();
    for (const f of ["a.txt", "b.txt", "c.txt", "d.txt"]) assert(offer(kept, mount, f));
    // As long, and its modification time set back: only its change time shows it.
    const before = Deno.statSync(`${root}/a.txt`);
    await Deno.writeTextFile(`${root}/a.txt`, "from a local!");
    Deno.utimeSync(`${root}/a.txt`, before.atime!, before.mtime!);
    await Deno.remove(`${root}/b.txt`);
    await Deno.writeTextFile(`${root}/x.txt`, "from the host");
    await Deno.rename(`${root}/x.txt`, `${root}/c.txt`);
    assert.deepEqual(kept.check(), [
      keptKey(open("a.txt")),
      keptKey(open("b.txt")),
      keptKey(open("c.txt")),
    ]);
    assert.equal(kept.size, 1);
    assert.equal(kept.check(), null, "each drop is told once");
    // Changed between its stat and its offer: not kept.
    const at = Date.now();
    const seen = mount.stat("d.txt", true) as Stat;
    await Deno.writeTextFile(`${root}/d.txt`, "changed while read");
    assert.equal(kept.offer(keptKey(open("d.txt"))!, seen, at), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the oldest kept file makes room; after a lost message the worker drops all first", async () => {
  const names = Array.from({ length: KEPT_FILES_MAX + 1 }, (_, i) => `f${i}.txt`);
  const { root, mount } = await oldWorld(names);
  try {
    const kept = new KeptFiles(mount);
    kept.check();
    for (const f of names) assert(offer(kept, mount, f));
    assert.equal(kept.size, KEPT_FILES_MAX);
    assert.deepEqual(kept.check(), [keptKey(open("f0.txt"))]);
    kept.lost();
    assert.equal(kept.size, 0);
    assert(offer(kept, mount, "f1.txt"));
    assert.equal(kept.check(), "all");
    assert.equal(kept.size, 1, "what was kept after the loss stays");
    assert.equal(kept.check(), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
