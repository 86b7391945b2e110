import { strict as assert } from "node:assert";
import { DiskMount } from "../../vfs/disk_mount.ts";
import { Descriptor, MAX_PATH, OpenFiles } from "./filesystem.ts";

Deno.test("a path or link target longer than MAX_PATH is name-too-long, before any lookup", async () => {
  const root = await Deno.makeTempDir();
  const files = new OpenFiles();
  const dir = new Descriptor(new DiskMount(root), "", null, { read: true, write: true }, files);
  const long = "a/".repeat(MAX_PATH / 2) + "b";
  const code = (p: Promise<unknown>) => p.then(() => "ok", (e) => e.payload ?? e.code ?? e);
  assert.equal(await code(dir.createDirectoryAt(long)), "name-too-long");
  assert.equal(await code(dir.symlinkAt(long, "l")), "name-too-long");
  assert.equal(await code(dir.createDirectoryAt("a".repeat(200))), "ok");
  files.closeAll();
});
