/**
 * The conformance suite against the mounts that need no host: the world
 * folder on disk and `/run` in memory. `/self` and `/proc` of a real host run
 * it in `tests/host_mounts_test.ts`.
 */

import { mountConformance } from "./conformance.ts";
import { DiskMount } from "./disk_mount.ts";
import { MemMount } from "./mem_mount.ts";

mountConformance("world (disk)", async () => {
  const dir = await Deno.makeTempDir();
  return { mount: new DiskMount(dir), cleanup: () => Deno.remove(dir, { recursive: true }) };
}, true);

mountConformance(
  "/run (memory)",
  () => Promise.resolve({ mount: new MemMount(), cleanup() {} }),
  true,
);
