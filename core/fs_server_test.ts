import { strict as assert } from "node:assert";
import { FsServer } from "./fs_server.ts";
import { DiskMount } from "../vfs/disk_mount.ts";
import { MemMount } from "../vfs/mem_mount.ts";
import type { FsRequest, RemoteMountName } from "../sandbox/protocol.ts";

function request(mount: RemoteMountName, method: string, args: unknown[]): FsRequest {
  return { op: "fs", pid: "p-1", id: 1, mount, method, args };
}

Deno.test("the core makes guests' symlinks in the world and a command's preopens, and does nothing else there", async () => {
  const world = await Deno.makeTempDir();
  const extra = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${world}/f`, "x");
    const server = new FsServer({
      proc: new MemMount(),
      run: new MemMount(),
      self: new MemMount(),
      world: new DiskMount(world),
      "preopen:/pkg": new DiskMount(extra),
    });
    const made = await server.handle(request("world", "symlink", ["f", "link"]));
    assert.equal(made.error, undefined);
    assert.equal(await Deno.readLink(`${world}/link`), "f");
    const there = await server.handle(request("preopen:/pkg", "symlink", ["a", "b"]));
    assert.equal(there.error, undefined);
    assert.equal(await Deno.readLink(`${extra}/b`), "a");
    const out = await server.handle(request("world", "symlink", ["../../etc/passwd", "up"]));
    assert.equal(out.error?.code, "not-permitted", "a link that leaves the world is refused");
    const read = await server.handle(request("world", "open", ["f", { read: true }]));
    assert.equal(read.error?.code, "invalid", "the sandbox reads the world itself");
    const other = await server.handle(request("preopen:/elsewhere", "symlink", ["a", "c"]));
    assert.equal(other.error?.code, "bad-descriptor", "only the process's own preopens");
  } finally {
    await Deno.remove(world, { recursive: true });
    await Deno.remove(extra, { recursive: true });
  }
});
