/**
 * The core's own reads and writes of world files (activation, revert,
 * build outputs), confined to the world: a path is resolved to its real
 * location and refused when that is outside the world, and the operation
 * itself runs inside the folder (`vfs/confined_dir.ts`) on a bare name, so
 * a link swapped in on the way cannot send it elsewhere.
 *
 * @module
 */

import { inFolder, relativeTo, splitPath } from "../vfs/confined_dir.ts";
import { HostError } from "../rpc/errors.ts";
import { FsError } from "../vfs/mount.ts";

/** Thrown when a world path leads outside the world. */
function outside(what: string): HostError {
  return new HostError("invalid-params", `${what} leads outside the world: refused`);
}

/**
 * The real path of `path` (a host path in the world), checked to be inside
 * `root`; `what` names it in the error.
 */
export function realInside(root: string, path: string, what = path): string {
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch {
    throw new HostError("invalid-params", `${what} does not exist`);
  }
  if (relativeTo(root, real) === null) throw outside(what);
  return real;
}

/**
 * Reads a regular file of the world (not a link: its real path is read),
 * checking that the file opened is the one named, in its own folder.
 */
export function readWorldFile(root: string, path: string, what = path): Uint8Array {
  const real = realInside(root, path, what);
  const { dir, name } = splitPath(real);
  try {
    return inFolder(root, dir, () => {
      const named = Deno.lstatSync(name);
      if (!named.isFile) throw outside(what);
      const file = Deno.openSync(name, { read: true });
      try {
        const seen = file.statSync();
        if (seen.ino !== named.ino || seen.dev !== named.dev) throw outside(what);
        const out = new Uint8Array(seen.size);
        let n = 0;
        while (n < out.length) {
          const got = file.readSync(out.subarray(n));
          if (got === null || got === 0) break;
          n += got;
        }
        return out.subarray(0, n);
      } finally {
        file.close();
      }
    });
  } catch (e) {
    if (e instanceof FsError && e.code === "not-permitted") throw outside(what);
    throw e;
  }
}

/**
 * Runs `f` inside the world folder `rel` (e.g. `plugins/notes`), creating
 * it (and its parents) when missing. Every folder on the way must be a real
 * folder, not a link, and `f` must use bare names.
 */
export function inWorldFolder<T>(root: string, rel: string, f: () => T): T {
  let at = "";
  for (const seg of rel.split("/")) {
    inFolder(root, at === "" ? root : `${root}/${at}`, (here) => {
      if (here !== at) throw outside(rel);
      try {
        Deno.mkdirSync(seg);
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
      if (!Deno.lstatSync(seg).isDirectory) throw outside(rel);
    });
    at = at === "" ? seg : `${at}/${seg}`;
  }
  return inFolder(root, `${root}/${rel}`, (here) => {
    if (here !== rel) throw outside(rel);
    return f();
  });
}
