/**
 * Operations confined to one folder of a root, safe against links swapped in
 * while they run. Deno has no `openat`: a path handed to the kernel is walked
 * again at the moment of the call, so a folder on the way that another
 * process replaced with a symlink since it was checked would lead outside.
 * Here the process first enters the folder (`chdir`), then asks the kernel
 * where it really is (`getcwd`), and only then operates on a bare name: no
 * folder is walked after the check. The calls are synchronous, so no other
 * code of this process runs (or sees the changed folder) in between.
 *
 * @module
 */

import { FsError } from "./mount.ts";

/** The folder the process started in, restored after each confined operation where permitted. */
const HOME = (() => {
  try {
    return Deno.cwd();
  } catch {
    return "/";
  }
})();

/** `root`-relative form of an absolute path inside it ("" for root), or null when outside. */
export function relativeTo(root: string, path: string): string | null {
  if (path === root) return "";
  return path.startsWith(root + "/") ? path.slice(root.length + 1) : null;
}

/**
 * Runs `f` inside the host folder `dir`, after checking that the folder the
 * kernel entered is `root` or under it; `f` gets that folder's
 * root-relative path and must use bare names. A folder that leads outside
 * (a link swapped in) fails with `not-permitted` before `f` runs.
 */
export function inFolder<T>(root: string, dir: string, f: (rel: string) => T): T {
  let entered = false;
  try {
    try {
      Deno.chdir(dir);
      entered = true;
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable) {
        throw new FsError("not-permitted", `${dir} leads outside ${root}`);
      }
      throw e;
    }
    let real: string;
    try {
      real = Deno.cwd();
    } catch {
      throw new FsError("not-permitted", `${dir} leads outside ${root}`);
    }
    const rel = relativeTo(root, real);
    if (rel === null) throw new FsError("not-permitted", `${dir} leads outside ${root}`);
    return f(rel);
  } finally {
    if (entered) {
      try {
        Deno.chdir(HOME);
      } catch {
        // A sandbox may not read the folder it started in: it stays here.
        // Nothing of this process uses relative paths.
      }
    }
  }
}

/** The parent folder and the last name of an absolute host path. */
export function splitPath(path: string): { dir: string; name: string } {
  const i = path.lastIndexOf("/");
  return { dir: i === 0 ? "/" : path.slice(0, i), name: path.slice(i + 1) };
}
