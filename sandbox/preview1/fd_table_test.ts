import { strict as assert } from "node:assert";
import { FdTable } from "./fd_table.ts";
import { ERRNO, Errno, errnoOf } from "./errno.ts";
import { FsError } from "../../vfs/mount.ts";
import { ByteQueue } from "../wasi/pipes.ts";

Deno.test("descriptors: lowest free first; close, renumber onto an open one only; EBADF otherwise", () => {
  const fds = new FdTable();
  const stdin = { kind: "stdio" as const, input: new ByteQueue() };
  assert.equal(fds.add(stdin), 0);
  assert.equal(fds.add({ kind: "stdio" }), 1);
  assert.equal(fds.add({ kind: "stdio" }), 2);
  fds.close(1);
  assert.equal(fds.add({ kind: "stdio" }), 1, "the lowest free descriptor");
  const badf = (f: () => unknown) =>
    assert.throws(f, (e) => e instanceof Errno && e.errno === ERRNO.badf);
  badf(() => fds.get(7));
  badf(() => fds.renumber(0, 7)); // onto a closed descriptor: EBADF (wasmtime)
  fds.renumber(0, 2);
  assert.equal(fds.get(2), stdin);
  badf(() => fds.get(0));
  badf(() => fds.file(2)); // stdio is no file
  assert.throws(() => fds.dir(2), (e) => e instanceof Errno && e.errno === ERRNO.notdir);
});

Deno.test("errors become errnos by one table; anything else is thrown on", () => {
  assert.equal(errnoOf(new FsError("read-only")), 69);
  assert.equal(errnoOf(new FsError("no-entry")), 44);
  assert.equal(errnoOf({ payload: "cross-device" }), 75);
  assert.equal(errnoOf(new Errno(ERRNO.notcapable)), 76);
  const fault = new Error("a host fault");
  assert.throws(() => errnoOf(fault), (e) => e === fault);
});
