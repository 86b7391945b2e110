import * as assert from "node:assert/strict";
import { World } from "./world.ts";

Deno.test("plugin.wasm is resolved again whenever it leads to another file: a link planted after a call is refused", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/plugins/p/versions`, { recursive: true });
    await Deno.writeFile(`${root}/plugins/p/versions/1.wasm`, new Uint8Array([0, 97, 115, 109]));
    await Deno.symlink("versions/1.wasm", `${root}/plugins/p/plugin.wasm`);
    const world = new World(root);
    const real = Deno.realPathSync(`${root}/plugins/p/versions/1.wasm`);
    assert.equal(world.pluginWasm("p"), real);
    assert.equal(world.pluginWasm("p"), real, "the same file: the same answer");

    // Another version inside the world: followed.
    await Deno.writeFile(`${root}/plugins/p/versions/2.wasm`, new Uint8Array([0, 97, 115, 109, 1]));
    await Deno.remove(`${root}/plugins/p/plugin.wasm`);
    await Deno.symlink("versions/2.wasm", `${root}/plugins/p/plugin.wasm`);
    assert.equal(world.pluginWasm("p"), Deno.realPathSync(`${root}/plugins/p/versions/2.wasm`));

    // A link out of the world, planted where a resolved plugin.wasm was.
    await Deno.writeFile(`${outside}/evil.wasm`, new Uint8Array([0, 97, 115, 109]));
    await Deno.remove(`${root}/plugins/p/plugin.wasm`);
    await Deno.symlink(`${outside}/evil.wasm`, `${root}/plugins/p/plugin.wasm`);
    assert.throws(() => world.pluginWasm("p"), /leads outside the world: refused/);

    // And gone: the error a missing component gets, not the last answer.
    await Deno.remove(`${root}/plugins/p/plugin.wasm`);
    assert.throws(() => world.pluginWasm("p"), /no such plugin: p \(no plugins\/p\/plugin.wasm\)/);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
