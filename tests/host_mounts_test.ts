/**
 * The conformance suite (`vfs/conformance.ts`) against the mounts a real host
 * serves: `/self` and `/proc`, with one live process. The mounts that need no
 * host (disk, memory) run it in `vfs/mounts_test.ts`.
 */

import { mountConformance } from "../vfs/conformance.ts";
import { ProcessDir } from "../vfs/process_dir.ts";
import { TestHost } from "./helpers/host.ts";
import { builtTestPlugin } from "./helpers/plugins.ts";

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
