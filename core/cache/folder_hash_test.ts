import { strict as assert } from "node:assert";
import { folderHash, hashFiles, listFiles } from "./folder_hash.ts";
import { sha256Sync } from "./file_hash.ts";
import { sha256 } from "./sha256.ts";
import { tempTree } from "../_temp_tree.ts";

const tree = (files: Record<string, string>) => tempTree(files, "sausage-folder-hash-");

const noDots = (name: string) => name.startsWith(".");

Deno.test("listFiles lists files relative and sorted, less skipped entries and what is under them", async () => {
  const root = await tree({ "b.txt": "b", "a/z.rs": "z", "a/b/c.rs": "c", ".git/x": "x" });
  try {
    assert.deepEqual(await listFiles(root, noDots), ["a/b/c.rs", "a/z.rs", "b.txt"]);
    assert.deepEqual(await listFiles(root, (_, rel) => rel === "a"), [".git/x", "b.txt"]);
    assert.deepEqual(await listFiles(`${root}/missing`, noDots), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("folderHash changes with a file's content or name, not with skipped files", async () => {
  const root = await tree({ "src/lib.rs": "fn a() {}", ".hidden": "1" });
  try {
    const first = await folderHash(root, noDots);
    assert.deepEqual(await hashFiles(root, noDots), [
      { rel: "src/lib.rs", sha256: await sha256("fn a() {}") },
    ]);
    await Deno.writeTextFile(`${root}/.hidden`, "2");
    assert.equal(await folderHash(root, noDots), first);
    await Deno.writeTextFile(`${root}/src/lib.rs`, "fn b() {}");
    const second = await folderHash(root, noDots);
    assert.notEqual(second, first);
    await Deno.rename(`${root}/src/lib.rs`, `${root}/src/main.rs`);
    assert.notEqual(await folderHash(root, noDots), second);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("sha256 of a text is the hash of its UTF-8 bytes", async () => {
  assert.equal(
    await sha256("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(await sha256("é"), await sha256(new TextEncoder().encode("é")));
  assert.equal(sha256Sync("é"), await sha256("é"));
  assert.equal(sha256Sync(new Uint8Array([1, 2, 3])), await sha256(new Uint8Array([1, 2, 3])));
});
