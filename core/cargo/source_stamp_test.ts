import { strict as assert } from "node:assert";
import { World } from "../world/world.ts";
import { recordBuilt, sourceHash, sourceState } from "./source_stamp.ts";

async function newWorld(): Promise<{ world: World; dir: string }> {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/config`);
  const dir = `${root}/plugins/hello`;
  await Deno.mkdir(`${dir}/source/src`, { recursive: true });
  await Deno.writeTextFile(`${dir}/source/Cargo.toml`, '[package]\nname = "hello"\n');
  await Deno.writeTextFile(`${dir}/source/src/main.rs`, "fn main() {}\n");
  return { world: new World(root), dir };
}

Deno.test("sourceState: by content; a touch or the same text changes nothing", async () => {
  const { world, dir } = await newWorld();
  assert.equal(await sourceState(world, "hello"), "no plugin.wasm");
  await Deno.writeFile(`${dir}/plugin.wasm`, new Uint8Array([0, 0x61, 0x73, 0x6d, 1]));
  await recordBuilt(world, "hello", `${dir}/plugin.wasm`, await sourceHash(`${dir}/source`));
  assert.equal(await sourceState(world, "hello"), "current");

  const main = `${dir}/source/src/main.rs`;
  const later = new Date(Date.now() + 60_000);
  await Deno.writeTextFile(main, "fn main() {}\n"); // saved unchanged
  await Deno.utime(main, later, later);
  await Deno.mkdir(`${dir}/source/target`); // build output is not source
  await Deno.writeTextFile(`${dir}/source/target/x`, "x");
  await Deno.writeTextFile(`${dir}/source/Cargo.lock`, "x");
  assert.equal(await sourceState(world, "hello"), "current");

  await Deno.writeTextFile(main, "fn main() { }\n");
  assert.equal(await sourceState(world, "hello"), "its source changed");
  await Deno.writeTextFile(main, "fn main() {}\n"); // undone
  assert.equal(await sourceState(world, "hello"), "current");
  await Deno.remove(world.root, { recursive: true });
});

Deno.test("sourceState: a component no build recorded is judged by time once, then recorded", async () => {
  const { world, dir } = await newWorld();
  await Deno.writeFile(`${dir}/plugin.wasm`, new Uint8Array([0, 0x61, 0x73, 0x6d, 2]));
  assert.equal(await sourceState(world, "hello"), "current"); // no source file is newer
  const later = new Date(Date.now() + 60_000);
  await Deno.utime(`${dir}/source/src/main.rs`, later, later);
  assert.equal(await sourceState(world, "hello"), "current", "recorded: a touch changes nothing");

  await Deno.writeFile(`${dir}/plugin.wasm`, new Uint8Array([0, 0x61, 0x73, 0x6d, 3])); // a copy by hand
  const older = new Date(Date.now() - 60_000);
  await Deno.utime(`${dir}/plugin.wasm`, older, older);
  assert.equal(await sourceState(world, "hello"), "its source changed");
  await Deno.remove(world.root, { recursive: true });
});
