/**
 * The conformance suite against every mount: the world folder on disk, `/run`
 * in memory, `/self` and `/proc` of a real host.
 */

import { mountConformance } from "./conformance.ts";
import { DiskMount } from "./disk_mount.ts";
import { MemMount } from "./mem_mount.ts";
import { ProcessDir } from "./process_dir.ts";
import { TestHost } from "../tests/helpers/host.ts";
import { builtTestPlugin } from "../tests/helpers/plugins.ts";

mountConformance("world (disk)", async () => {
  const dir = await Deno.makeTempDir();
  return { mount: new DiskMount(dir), cleanup: () => Deno.remove(dir, { recursive: true }) };
}, true);

mountConformance(
  "/run (memory)",
  () => Promise.resolve({ mount: new MemMount(), cleanup() {} }),
  true,
);

const fsprobe = await builtTestPlugin("fsprobe");

/** A host with one live process (it waits for EOF), for `/self` and `/proc`. */
async function liveProcess() {
  const h = await TestHost.start({ plugins: { fsprobe } });
  const call = h.call("fsprobe.run", { ops: [{ op: "answer" }, { op: "wait_eof" }] });
  await call;
  const pid = h.host.table.all()[0].pid;
  return { h, pid };
}

mountConformance("/self", async () => {
  const { h, pid } = await liveProcess();
  return { mount: new ProcessDir(h.host.view, pid, true), cleanup: () => h.close() };
}, true);

mountConformance("/proc", async () => {
  const { h, pid } = await liveProcess();
  return { mount: h.host.proc, existingFile: `${pid}/info.json`, cleanup: () => h.close() };
}, false);
