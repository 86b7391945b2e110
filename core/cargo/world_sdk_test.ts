import { strict as assert } from "node:assert";
import { sdkHash, syncSdk } from "./world_sdk.ts";
import { tempTree } from "../_temp_tree.ts";

const tree = (files: Record<string, string>) => tempTree(files, "sausage-sdk-");

Deno.test("syncSdk copies the SDK's files, leaves an equal copy alone and replaces a different one", async () => {
  const from = await tree({
    "sausage-plugin/Cargo.toml": "[package]\n",
    "sausage-plugin/src/lib.rs": "// lib\n",
    "sausage-plugin/target/debug/big": "build output",
    ".git-keep": "dot files are not the SDK",
    "ui_test.ts": "// the repository's test harness, not the SDK",
  });
  const world = await Deno.makeTempDir({ prefix: "sausage-world-" });
  const to = `${world}/plugins/cargo/sdk`;
  try {
    assert.equal(await syncSdk(from, world), "copied");
    assert.equal(await Deno.readTextFile(`${to}/sausage-plugin/src/lib.rs`), "// lib\n");
    await assert.rejects(Deno.stat(`${to}/sausage-plugin/target`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${to}/.git-keep`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${to}/ui_test.ts`), Deno.errors.NotFound);
    assert.equal(await sdkHash(to), await sdkHash(from));

    const before = (await Deno.stat(`${to}/sausage-plugin/src/lib.rs`)).mtime;
    assert.equal(await syncSdk(from, world), "unchanged");
    assert.deepEqual((await Deno.stat(`${to}/sausage-plugin/src/lib.rs`)).mtime, before);

    await Deno.writeTextFile(`${to}/sausage-plugin/src/lib.rs`, "// edited in the world\n");
    await Deno.writeTextFile(`${to}/stray.rs`, "");
    assert.equal(await syncSdk(from, world), "copied");
    assert.equal(await Deno.readTextFile(`${to}/sausage-plugin/src/lib.rs`), "// lib\n");
    await assert.rejects(Deno.stat(`${to}/stray.rs`), Deno.errors.NotFound);
    assert.deepEqual([...Deno.readDirSync(`${world}/plugins/cargo`)].map((e) => e.name), ["sdk"]);
  } finally {
    await Deno.remove(from, { recursive: true });
    await Deno.remove(world, { recursive: true });
  }
});

Deno.test("with a stamp, an untouched copy is not compared again, and any change is still caught", async () => {
  const from = await tree({ "sausage-plugin/src/lib.rs": "// lib\n" });
  const world = await Deno.makeTempDir({ prefix: "sausage-world-" });
  const to = `${world}/plugins/cargo/sdk`;
  const stamp = `${world}/sdk-copy.json`;
  const lib = `${to}/sausage-plugin/src/lib.rs`;
  try {
    assert.equal(await syncSdk(from, world, stamp), "copied");
    assert.equal(await syncSdk(from, world, stamp), "unchanged");
    // An edit that keeps the size and sets the mtime back: the change time still differs.
    const { mtime } = await Deno.stat(lib);
    await new Promise((r) => setTimeout(r, 1100)); // change times have whole seconds here
    await Deno.writeTextFile(lib, "// LIB\n");
    await Deno.utime(lib, mtime!, mtime!);
    assert.equal(await syncSdk(from, world, stamp), "copied");
    assert.equal(await Deno.readTextFile(lib), "// lib\n");
    await Deno.writeTextFile(`${from}/sausage-plugin/src/new.rs`, "// new\n");
    assert.equal(await syncSdk(from, world, stamp), "copied");
    assert.equal(await Deno.readTextFile(`${to}/sausage-plugin/src/new.rs`), "// new\n");
    await Deno.writeTextFile(stamp, "not a stamp");
    assert.equal(
      await syncSdk(from, world, stamp),
      "unchanged",
      "a damaged stamp means a comparison",
    );
  } finally {
    await Deno.remove(from, { recursive: true });
    await Deno.remove(world, { recursive: true });
  }
});
