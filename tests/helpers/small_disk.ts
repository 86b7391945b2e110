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
  return fillDisk(path, true);
}

/**
 * Fills the disk of `path` once, as a disk fills: 256 KiB writes until the
 * first refusal, then each smaller size (128 KiB down to 512 bytes) once.
 * Unlike {@link fill} it does not go on taking what is freed meanwhile (a
 * space given back at that moment, such as the journal's reserve, stays
 * free but for less than 256 KiB). Returns the bytes written.
 */
export function fillOnce(path: string): number {
  return fillDisk(path, false);
}

function fillDisk(path: string, greedy: boolean): number {
  const f = Deno.openSync(path, { write: true, create: true });
  let n = 0;
  const write = (size: number, again: boolean) => {
    const chunk = new Uint8Array(size).fill(7);
    try {
      do n += f.writeSync(chunk); while (again);
    } catch (e) {
      if (!/space|ENOSPC|full/i.test(String(e))) throw e;
    }
  };
  try {
    write(256 * 1024, true);
    for (let size = 128 * 1024; size >= 512; size /= 2) write(size, greedy);
  } finally {
    f.close();
  }
  return n;
}

/**
 * Runs `fn` with a world on a tmpfs of `mib` MiB (`<mnt>/world`): each of
 * `plugins` (name → component file) copied to `plugins/<name>/plugin.wasm`
 * and `limits` written as `config/limits.json`; unmounted after. Where no
 * tmpfs can be mounted (not root), says so and returns without running it.
 */
export async function onSmallDisk(
  mib: number,
  plugins: Record<string, string>,
  limits: Record<string, unknown>,
  fn: (world: string, mnt: string) => Promise<void>,
): Promise<void> {
  const mnt = smallDisk(mib);
  if (!mnt) {
    console.error("cannot mount a tmpfs here: the full-disk case was not run");
    return;
  }
  const world = `${mnt}/world`;
  try {
    for (const [name, wasm] of Object.entries(plugins)) {
      Deno.mkdirSync(`${world}/plugins/${name}`, { recursive: true });
      Deno.copyFileSync(wasm, `${world}/plugins/${name}/plugin.wasm`);
    }
    Deno.mkdirSync(`${world}/config`, { recursive: true });
    Deno.writeTextFileSync(`${world}/config/limits.json`, JSON.stringify(limits));
    await fn(world, mnt);
  } finally {
    dropSmallDisk(mnt);
  }
}
