import { strict as assert } from "node:assert";
import { thrown } from "../_test_utils.ts";
import { ERRNO, Errno, errnoOf } from "./errno.ts";
import { FsError } from "../../vfs/mount.ts";
import { GuestExit } from "../wasi/cli.ts";

Deno.test("the host's own filesystem errors reach the guest as their preview-1 errno", async () => {
  const dir = await Deno.makeTempDir({ prefix: "p1-errno-" });
  await Deno.writeTextFile(`${dir}/file`, "x");
  await Deno.mkdir(`${dir}/full`);
  await Deno.writeTextFile(`${dir}/full/x`, "x");
  assert.equal(errnoOf(thrown(() => Deno.openSync(`${dir}/missing`))), ERRNO.noent);
  assert.equal(errnoOf(thrown(() => Deno.mkdirSync(`${dir}/file`))), ERRNO.exist);
  assert.equal(errnoOf(thrown(() => [...Deno.readDirSync(`${dir}/file`)])), ERRNO.notdir);
  assert.equal(errnoOf(thrown(() => Deno.removeSync(`${dir}/full`))), ERRNO.notempty);
  assert.equal(errnoOf(thrown(() => Deno.openSync(`${dir}/file/x`))), ERRNO.notdir);
});

Deno.test("WIT error-code names map by name, from a mount and from the glue's {payload}", () => {
  const pairs: [string, number][] = [
    ["access", ERRNO.acces],
    ["would-block", ERRNO.again],
    ["invalid-seek", ERRNO.spipe],
    ["insufficient-space", ERRNO.nospc],
    ["quota", ERRNO.dquot],
    ["read-only", ERRNO.rofs],
    ["not-permitted", ERRNO.perm],
    ["cross-device", ERRNO.xdev],
  ];
  for (const [code, errno] of pairs) {
    assert.equal(errnoOf(new FsError(code)), errno, `FsError ${code}`);
    assert.equal(errnoOf({ payload: code }), errno, `payload ${code}`);
  }
});

Deno.test("a code with no preview-1 counterpart is EIO, never success", () => {
  assert.equal(errnoOf(new FsError("no-such-code")), ERRNO.io);
  assert.equal(errnoOf({ payload: "no-such-code" }), ERRNO.io);
});

Deno.test("an Errno passes as it is; an exit, a trap or a plain error is thrown on", () => {
  assert.equal(errnoOf(new Errno(ERRNO.notcapable)), ERRNO.notcapable);
  const exit = new GuestExit(3);
  assert.equal(thrown(() => errnoOf(exit)), exit);
  const trap = new WebAssembly.RuntimeError("unreachable");
  assert.equal(thrown(() => errnoOf(trap)), trap);
  const plain = new Error("a host fault");
  assert.equal(thrown(() => errnoOf(plain)), plain);
  const runError = { payload: undefined };
  assert.equal(thrown(() => errnoOf(runError)), runError, "a run's err is no filesystem error");
});
