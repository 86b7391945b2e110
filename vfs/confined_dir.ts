/**
 * Operations confined to one folder of a root, safe against links swapped in
 * while they run. Deno has no `openat`: a path handed to the kernel is walked
 * again at the moment of the call, so a folder on the way that another
 * process replaced with a symlink since it was checked would lead outside.
 * Here the process first enters the folder (`chdir`), then asks the kernel
 * where it really is (`getcwd`), and only then operates on a bare name: no
 * folder is walked after the check. The calls are synchronous, so no other
 * code of this thread runs (or sees the changed folder) in between.
 *
 * The working folder belongs to the process, not the thread: JavaScript on
 * another thread of the same process (`deno test --parallel` runs test
 * modules as threads of one process; a `Worker`) that entered its own folder
 * in between made a bare name mean a file of the other folder (seen as
 * `FsError: dir/z changed while it was opened` in `vfs/mounts_test.ts`). So
 * each confined operation holds an exclusive `flock` on the Deno binary,
 * which every thread opens for itself (a lock per open file, so threads
 * exclude each other); uncontended in a host, where one thread does this.
 * A sandbox, which may not read the binary, runs one thread and needs none.
 *
 * @module
 */

import { FsError } from "./mount.ts";

/**
 * The lock that keeps the process's working folder to one thread at a time
 * (this thread's own open of the Deno binary); null where it cannot be read.
 */
const CWD_LOCK = (() => {
  try {
    return Deno.openSync(Deno.execPath(), { read: true });
  } catch {
    return null;
  }
})();

/** Confined operations of this thread under way (`f` may nest another). */
let depth = 0;

/** The folder the process started in, restored after each confined operation where permitted. */
const HOME = (() => {
  CWD_LOCK?.lockSync(true); // not read while another thread is in a folder
  try {
    return Deno.cwd();
  } catch {
    return "/";
  } finally {
    CWD_LOCK?.unlockSync();
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
  if (depth++ === 0) CWD_LOCK?.lockSync(true);
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
    if (--depth === 0) CWD_LOCK?.unlockSync();
  }
}

/** The parent folder and the last name of an absolute host path. */
export function splitPath(path: string): { dir: string; name: string } {
  const i = path.lastIndexOf("/");
  return { dir: i === 0 ? "/" : path.slice(0, i), name: path.slice(i + 1) };
}
