import * as assert from "node:assert/strict";
import { World } from "./world.ts";
import { RECHECK_MS } from "./recent_components.ts";

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

Deno.test("a call's component is checked at most every RECHECK_MS: a copy by hand is seen after it, a replacement the core says of at once", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/plugins/p`, { recursive: true });
    const wasm = `${root}/plugins/p/plugin.wasm`;
    await Deno.writeFile(wasm, new Uint8Array([0, 97, 115, 109]));
    const world = new World(root);
    const checked = performance.now();
    assert.equal(world.currentComponent("p").info?.size, 4);

    // A copy by hand within the window: the calls right after it still see what was checked.
    await Deno.writeFile(`${wasm}.tmp`, new Uint8Array([0, 97, 115, 109, 1]));
    await Deno.rename(`${wasm}.tmp`, wasm);
    const seen = world.currentComponent("p").info?.size;
    // (A loaded machine can take longer than the window to write the copy.)
    if (performance.now() - checked < RECHECK_MS) assert.equal(seen, 4);
    await new Promise((r) => setTimeout(r, RECHECK_MS + 20));
    assert.equal(world.currentComponent("p").info?.size, 5, "checked again after RECHECK_MS");

    // A replacement the core made (an activation): the very next call sees it.
    await Deno.writeFile(`${wasm}.tmp`, new Uint8Array([0, 97, 115, 109, 1, 2]));
    await Deno.rename(`${wasm}.tmp`, wasm);
    world.replaced("p");
    assert.equal(world.currentComponent("p").info?.size, 6);

    // A failure is not kept: once the file is there, the next call runs it.
    assert.throws(() => world.currentComponent("q"), /no such plugin: q/);
    await Deno.mkdir(`${root}/plugins/q`);
    await Deno.writeFile(`${root}/plugins/q/plugin.wasm`, new Uint8Array([0, 97, 115, 109]));
    assert.equal(world.currentComponent("q").info?.size, 4);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
