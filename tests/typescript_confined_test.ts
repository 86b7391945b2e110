/**
 * A TypeScript plugin's build reads its source folder only (the host builds
 * for guests: the agent's `cargo.build`): an import that leads out of the
 * folder is not found, so nothing of the file it names reaches the
 * compiler's messages, and a link out of the folder is refused.
 */

import { strict as assert } from "node:assert";
import { buildTsPlugin } from "../core/typescript/ts_build.ts";

const TEMPLATE = new URL("../cli/templates/ts/", import.meta.url).pathname;

Deno.test("a TypeScript build reads nothing outside the plugin's source folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sausage-ts-confined-" });
  try {
    const source = `${dir}/w/plugins/p/source`;
    await Deno.mkdir(source, { recursive: true });
    for (const f of ["plugin.ts", "plugin_test.ts"]) {
      await Deno.copyFile(`${TEMPLATE}${f}`, `${source}/${f}`);
    }
    // A file of the machine's, with a type error that would quote it if it were read.
    await Deno.writeTextFile(`${dir}/w/secret.ts`, 'export const s: number = "TOPSECRET";\n');
    await buildTsPlugin(source, "p", `${dir}/ok.wasm`, true); // the template builds

    const text = await Deno.readTextFile(`${source}/plugin.ts`);
    await Deno.writeTextFile(
      `${source}/plugin.ts`,
      `import { s } from "../../../secret";\nexport const x = s;\n${text}`,
    );
    const imported = await buildTsPlugin(source, "p", `${dir}/bad.wasm`).then(
      () => assert.fail("built with an import out of the folder"),
      (e) => e as { message: string; output: string },
    );
    assert.match(imported.output, /plugin\.ts:1:19: Cannot find module '\.\.\/\.\.\/\.\.\/secret'/);
    assert.doesNotMatch(imported.output, /TOPSECRET/);

    await Deno.writeTextFile(`${source}/plugin.ts`, text);
    await Deno.symlink(`${dir}/w/secret.ts`, `${source}/link.ts`);
    await assert.rejects(
      buildTsPlugin(source, "p", `${dir}/bad.wasm`),
      /link\.ts is a link out of the plugin's source folder: refused/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
