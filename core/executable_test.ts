import { strict as assert } from "node:assert";
import { findExecutable } from "./executable.ts";

Deno.test("findExecutable: the first candidate that is a file, past missing paths and folders", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sausage-executable-" });
  try {
    await Deno.mkdir(`${dir}/folder`);
    await Deno.writeTextFile(`${dir}/tool`, "#!/bin/sh\n");
    await Deno.writeTextFile(`${dir}/other`, "#!/bin/sh\n");
    await Deno.symlink(`${dir}/tool`, `${dir}/link`);
    assert.equal(
      findExecutable([`${dir}/gone`, `${dir}/folder`, `${dir}/tool`, `${dir}/other`]),
      `${dir}/tool`,
    );
    assert.equal(findExecutable([`${dir}/link`]), `${dir}/link`);
    assert.equal(findExecutable([`${dir}/gone`, `${dir}/folder`]), undefined);
    assert.equal(findExecutable([]), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
