/**
 * The core's side of the sandbox's filesystem requests: what it serves where,
 * how it checks what a sandbox sends, and how a host fault is told apart
 * from an errno. (The whole round trip runs the conformance suite in
 * `sandbox/mounts/remote_mount_test.ts`.)
 */

import { strict as assert } from "node:assert";
import { FsServer, type UncheckedFsRequest } from "./fs_server.ts";
import type { HostError } from "../../rpc/errors.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import { READ_ONLY } from "../../vfs/mount.ts";
import { fromBase64 } from "../../rpc/base64.ts";

function request(mount: string, method: string, args: unknown): UncheckedFsRequest {
  return { pid: "p-1", id: 1, mount, call: { method, args } };
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

Deno.test("a request that does not fit its method is invalid, and nothing is done", async () => {
  const run = new MemMount();
  const server = new FsServer({ run });
  const bad: [string, unknown][] = [
    ["mkdir", [42]],
    ["mkdir", ["a", "b"]],
    ["mkdir", "a"],
    ["open", ["f", { read: true }]],
    ["setTimes", ["f", { ms: 1, ns: 1e6 }, null, true]],
    ["h.read", [1, -1, 0]],
    ["h.write", [1, "not base64!", 0]],
    ["constructor", []],
  ];
  for (const [method, args] of bad) {
    const reply = await server.handle(request("run", method, args));
    assert.equal(reply.error?.code, "invalid", `${method} ${JSON.stringify(args)}`);
  }
  const noCall = await server.handle({ pid: "p-1", id: 2, mount: "run", call: null });
  assert.equal(noCall.error?.code, "invalid");
  assert.deepEqual(run.readDir(""), []);
});

Deno.test("a mount or handle the process does not have is bad-descriptor", async () => {
  const server = new FsServer({ run: new MemMount() });
  for (const mount of ["proc", "__proto__", "constructor", 7]) {
    const call = { method: "readDir", args: [""] };
    const reply = await server.handle({ pid: "p-1", id: 1, mount, call });
    assert.equal(reply.error?.code, "bad-descriptor", String(mount));
  }
  const closed = await server.handle(request("run", "h.size", [99]));
  assert.equal(closed.error?.code, "bad-descriptor");
});

Deno.test("an exception in the mount is a host fault, told to onFault, not an io error", async () => {
  const run = new MemMount();
  run.readDir = () => {
    throw new TypeError("a bug in the mount");
  };
  const faults: HostError[] = [];
  const server = new FsServer({ run }, (f) => faults.push(f));
  const reply = await server.handle(request("run", "readDir", [""]));
  assert.equal(reply.error, undefined);
  assert.match(reply.fault ?? "", /TypeError: a bug in the mount/);
  assert.equal(faults.length, 1);
  assert.equal(faults[0].code, "host-fault");
  assert.ok(faults[0].cause instanceof TypeError);
  const errno = await server.handle(request("run", "stat", ["missing", true]));
  assert.equal(errno.error?.code, "no-entry", "an errno stays an errno");
  assert.equal(faults.length, 1);
});

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
    // At the bound exactly, and empty: whole, every byte.
    await Deno.writeFile(`${dir}/edge.bin`, new Uint8Array(64).fill(7));
    await Deno.writeFile(`${dir}/empty.bin`, new Uint8Array(0));
    const edge = await open("/edge.bin", READ_ONLY, 4);
    assert.deepEqual(fromBase64(edge.whole!.data), new Uint8Array(64).fill(7));
    assert.equal(edge.whole!.stat.size, 64);
    const empty = await open("/empty.bin", READ_ONLY, 5);
    assert.equal(empty.whole!.data, "");
    assert.equal(empty.whole!.stat.size, 0);
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
