import { strict as assert } from "node:assert";
import { FsServer } from "./fs_server.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import { READ_ONLY } from "../../vfs/mount.ts";
import { fromBase64 } from "../../rpc/base64.ts";

Deno.test("a small file opened for reading comes whole with its open; its handle is closed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/small.txt`, "from the host");
    await Deno.writeFile(`${dir}/big.bin`, new Uint8Array(100));
    const fs = new FsServer({ world: new DiskMount(dir) }, () => {}, true);
    const open = (path: string, opts = READ_ONLY, id = 1) =>
      fs.handle({ pid: "p", id, mount: "world", call: { method: "open", args: [path, opts] } }, 64);
    const small = await open("/small.txt");
    assert.equal(new TextDecoder().decode(fromBase64(small.whole!.data)), "from the host");
    assert.equal(small.whole!.stat.size, 13);
    assert.equal(small.whole!.stat.type, "regular-file");
    // Its handle is no longer open on the host: the worker answers it.
    const read = await fs.handle({
      pid: "p",
      id: 2,
      mount: "world",
      call: { method: "h.read", args: [small.result, 10, 0] },
    });
    assert.equal(read.error?.code, "bad-descriptor");
    // Over the bound, or opened to write: an ordinary handle.
    const big = await open("/big.bin");
    assert.equal(big.whole, undefined);
    assert.equal(typeof big.result, "number");
    const rw = await open("/small.txt", { ...READ_ONLY, write: true });
    assert.equal(rw.whole, undefined);
    // Without a bound (a local process's own requests): never whole.
    const plain = await fs.handle({
      pid: "p",
      id: 3,
      mount: "world",
      call: { method: "open", args: ["/small.txt", READ_ONLY] },
    });
    assert.equal(plain.whole, undefined);
    fs.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
