/**
 * The world mount's boundary rules that the conformance suite does not cover:
 * the core's folder is read-only, and links cannot be made or moved so that
 * they lead outside. (Sandboxes cannot make links at all; the host-side
 * mount can, so the rules are checked here.)
 */

import assert from "node:assert/strict";
import { DiskMount } from "./disk_mount.ts";
import type { OpenOptions } from "./mount.ts";

const RW: OpenOptions = {
  read: true,
  write: true,
  create: true,
  exclusive: false,
  truncate: false,
  directory: false,
};

function world(): { root: string; mount: DiskMount } {
  const root = Deno.makeTempDirSync({ prefix: "sausage-disk-" });
  Deno.mkdirSync(`${root}/state/core`, { recursive: true });
  Deno.writeTextFileSync(`${root}/state/core/journal.sqlite`, "journal");
  return { root, mount: new DiskMount(root) };
}

Deno.test("state/core is read-only: writes, creates, renames and deletes fail with read-only", () => {
  const { root, mount } = world();
  try {
    const ro = (f: () => unknown) =>
      assert.throws(f, (e: { code?: string }) => e.code === "read-only");
    ro(() => mount.open("state/core/journal.sqlite", RW));
    ro(() => mount.open("state/core/new", RW));
    ro(() => mount.unlink("state/core/journal.sqlite"));
    ro(() => mount.rename("state/core/journal.sqlite", "state/x"));
    ro(() => mount.rename("state/core", "state/core2"));
    ro(() => mount.rename("state", "state2"));
    ro(() => mount.rmdir("state"));
    ro(() => mount.mkdir("state/core/sub"));
    Deno.writeTextFileSync(`${root}/state/evil`, "CLOBBERED");
    ro(() => mount.rename("state/evil", "state/core/journal.sqlite"));
    Deno.symlinkSync("core", `${root}/state/lnk`);
    ro(() => mount.open("state/lnk/journal.sqlite", RW));
    const h = mount.open("state/core/journal.sqlite", { ...RW, write: false, create: false });
    assert.equal(new TextDecoder().decode(h!.read(100, 0) as Uint8Array), "journal");
    h!.close();
    assert.equal(Deno.readTextFileSync(`${root}/state/core/journal.sqlite`), "journal");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("links that would leave the world cannot be made or moved there", () => {
  const { root, mount } = world();
  const outside = Deno.makeTempDirSync({ prefix: "sausage-outside-" });
  try {
    const denied = (f: () => unknown) =>
      assert.throws(f, (e: { code?: string }) => e.code === "not-permitted");
    denied(() => mount.symlink("/etc", "abs"));
    denied(() => mount.symlink("../../etc", "up"));
    denied(() => mount.symlink("../../etc", "state/up"));
    mount.symlink("../plugins", "state/ok"); // stays inside
    Deno.symlinkSync(outside, `${root}/abs_link`); // put there by the user
    Deno.mkdirSync(`${root}/plugins`);
    denied(() => mount.rename("abs_link", "plugins/victim"));
    Deno.symlinkSync("../x", `${root}/state/rel`);
    denied(() => mount.rename("state/rel", "rel")); // ../x from the root is outside
    denied(() => mount.open("abs_link/f", RW));
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  } finally {
    Deno.removeSync(root, { recursive: true });
    Deno.removeSync(outside, { recursive: true });
  }
});
