/**
 * Small disks for the full-disk cases: a real tmpfs mounted for the test
 * (root only), filled to the last block.
 *
 * @module
 */

/** Mounts a tmpfs of `mib` MiB; null when this machine does not let us (not root, no mount). */
export function smallDisk(mib: number): string | null {
  const dir = Deno.makeTempDirSync({ prefix: "sausage-small-disk-" });
  const out = new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${mib}m,mode=0700`, "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  }).outputSync();
  if (out.code === 0) return dir;
  Deno.removeSync(dir);
  return null;
}

/** Unmounts and removes a folder of {@link smallDisk}. */
export function dropSmallDisk(dir: string): void {
  new Deno.Command("umount", { args: ["-l", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
}

/** Writes 256 KiB, then smaller chunks, to `path` until the disk is full; returns the bytes written. */
export function fill(path: string): number {
  const f = Deno.openSync(path, { write: true, create: true });
  let n = 0;
  try {
    for (let size = 256 * 1024; size >= 512; size /= 2) {
      const chunk = new Uint8Array(size).fill(7);
      try {
        for (;;) n += f.writeSync(chunk);
      } catch (e) {
        if (!/space|ENOSPC|full/i.test(String(e))) throw e;
      }
    }
  } finally {
    f.close();
  }
  return n;
}
