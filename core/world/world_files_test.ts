import { strict as assert } from "node:assert";
import {
  readWorldText,
  removeWorldEntry,
  renameInWorld,
  worldFolder,
  writeWorldFile,
} from "./world_files.ts";

/** A world and an outside folder with one file; `f` gets both (real paths). */
function withFolders(f: (world: string, outside: string) => void): void {
  const world = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sausage-world-" }));
  const outside = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sausage-outside-" }));
  Deno.writeTextFileSync(`${outside}/file`, "outside\n");
  try {
    f(world, outside);
  } finally {
    Deno.removeSync(world, { recursive: true });
    Deno.removeSync(outside, { recursive: true });
  }
}

Deno.test("writeWorldFile makes folders, replaces a link at the name, refuses a link on the way", () => {
  withFolders((world, outside) => {
    writeWorldFile(world, "a/b/c.txt", "one");
    assert.equal(Deno.readTextFileSync(`${world}/a/b/c.txt`), "one");
    Deno.symlinkSync(`${outside}/file`, `${world}/a/b/link.txt`);
    writeWorldFile(world, "a/b/link.txt", "two");
    assert.equal(Deno.readTextFileSync(`${outside}/file`), "outside\n");
    assert.ok(Deno.lstatSync(`${world}/a/b/link.txt`).isFile);
    Deno.symlinkSync(outside, `${world}/a/out`);
    assert.throws(() => writeWorldFile(world, "a/out/new.txt", "x"), /leads outside the world/);
    Deno.symlinkSync("b", `${world}/a/inside`); // a link that stays inside is refused too
    assert.throws(() => writeWorldFile(world, "a/inside/x.txt", "x"), /refused/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["file"]);
  });
});

Deno.test("worldFolder, removeWorldEntry, renameInWorld and readWorldText never follow a link out", () => {
  withFolders((world, outside) => {
    Deno.mkdirSync(`${world}/plugins/cargo`, { recursive: true });
    const f = worldFolder(world, "plugins/cargo");
    assert.equal(f.path, `${world}/plugins/cargo`);
    assert.equal(f.ino, Deno.statSync(`${world}/plugins/cargo`).ino);
    Deno.symlinkSync(outside, `${world}/plugins/sdk`);
    assert.throws(() => worldFolder(world, "plugins/sdk"), /leads outside the world/);
    assert.throws(() => worldFolder(world, "plugins/sdk/x", { create: true }), /refused/);
    removeWorldEntry(world, "plugins/sdk");
    assert.equal(Deno.readTextFileSync(`${outside}/file`), "outside\n", "only the link went");
    Deno.symlinkSync(outside, `${world}/plugins/cargo/sdk`);
    renameInWorld(world, "plugins/cargo", "sdk", "old");
    assert.ok(Deno.lstatSync(`${world}/plugins/cargo/old`).isSymlink);
    Deno.symlinkSync(`${outside}/file`, `${world}/config.json`);
    assert.throws(() => readWorldText(world, "config.json"), /leads outside the world/);
    assert.equal(readWorldText(world, "missing.json"), undefined);
    writeWorldFile(world, "in.json", "{}");
    Deno.symlinkSync("in.json", `${world}/alias.json`);
    assert.equal(readWorldText(world, "alias.json"), "{}", "a link inside is read");
  });
});
