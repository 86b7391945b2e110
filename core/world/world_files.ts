/**
 * The one way host code reads, writes, renames, removes, copies and binds
 * inside a world (activation, revert, build outputs and folders, the SDK
 * copy, `.cargo/config.toml`, the console history, config reads, the build
 * sandbox's binds). A guest may leave links anywhere in its world, and a
 * link that pointed inside can point outside after a rename, so nothing here
 * trusts a path checked earlier:
 *
 * - a write, rename or removal runs inside the folder it changes
 *   (`vfs/confined_dir.ts`: enter it, ask the kernel where it really is, then
 *   act on a bare name), and every folder on the way from the world root
 *   must be a real folder, not a link ({@link inWorldFolder}); new files are
 *   made with `O_EXCL` and renamed over the name, which replaces a link
 *   rather than following it;
 * - a read follows links only while they stay in the world, and opens a
 *   regular file only, checked by inode ({@link readWorldFile});
 * - a folder handed to another program (the build sandbox binds it) is a
 *   chain of real folders ({@link worldFolder}), and the program checks its
 *   identity (device and inode) again once it is mounted.
 *
 * @module
 */

import { inFolder, relativeTo, splitPath } from "../../vfs/confined_dir.ts";
import { HostError } from "../../rpc/errors.ts";
import { FsError } from "../../vfs/mount.ts";
import { NotRegularFile, readRegularBytes } from "./regular_file.ts";

/** Thrown when a world path leads outside the world. */
function outside(what: string): HostError {
  return new HostError("invalid-params", `${what} leads outside the world: refused`);
}

/** Thrown when a world path names a FIFO, socket, device or folder where a file is expected. */
function notRegular(what: string, info?: Deno.FileInfo): HostError {
  const kind = !info
    ? "not a regular file"
    : info.isDirectory
    ? "a folder, not a regular file"
    : info.isFifo
    ? "a FIFO, not a regular file"
    : info.isSocket
    ? "a socket, not a regular file"
    : "a device or special file, not a regular file";
  return new HostError("invalid-params", `${what} is ${kind}: refused`);
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
      if (named.isSymlink) throw outside(what);
      if (!named.isFile) throw notRegular(what, named);
      // Opened without waiting and checked by inode: a FIFO swapped in after the lstat
      // cannot block the host, and no other file is read.
      try {
        return readRegularBytes(name, { dev: named.dev, ino: named.ino });
      } catch (e) {
        if (e instanceof NotRegularFile) throw new HostError("invalid-params", e.message);
        throw e;
      }
    });
  } catch (e) {
    if (e instanceof FsError && e.code === "not-permitted") throw outside(what);
    throw e;
  }
}

/**
 * Runs `f` inside the world folder `rel` (e.g. `plugins/notes`; `""` is the
 * world folder itself), creating it (and its parents) when missing unless
 * `create` is false (then a missing folder throws `Deno.errors.NotFound`).
 * Every folder on the way must be a real folder, not a link, and `f` must
 * use bare names.
 */
export function inWorldFolder<T>(
  root: string,
  rel: string,
  f: () => T,
  opts: { create?: boolean } = {},
): T {
  const create = opts.create ?? true;
  let at = "";
  for (const seg of rel === "" ? [] : rel.split("/")) {
    if (seg === "" || seg === "." || seg === "..") throw outside(rel);
    confined(rel, () =>
      inFolder(root, at === "" ? root : `${root}/${at}`, (here) => {
        if (here !== at) throw outside(rel);
        if (create) {
          try {
            Deno.mkdirSync(seg);
          } catch (e) {
            if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
          }
        }
        if (!Deno.lstatSync(seg).isDirectory) throw outside(rel);
      }));
    at = at === "" ? seg : `${at}/${seg}`;
  }
  return confined(rel, () =>
    inFolder(root, rel === "" ? root : `${root}/${rel}`, (here) => {
      if (here !== rel) throw outside(rel);
      return f();
    }));
}

/** Runs `f`, turning the confinement's `not-permitted` into the refusal of `what`. */
function confined<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof FsError && e.code === "not-permitted") throw outside(what);
    throw e;
  }
}

/** The folder and the last name of a world-relative path. */
function parts(rel: string): { dir: string; name: string } {
  const i = rel.lastIndexOf("/");
  return i < 0 ? { dir: "", name: rel } : { dir: rel.slice(0, i), name: rel.slice(i + 1) };
}

/** A world folder checked to be a chain of real folders: its path and identity. */
export interface WorldFolder {
  /** The host path (`<root>/<rel>`, with every component a real folder). */
  path: string;
  dev: number;
  ino: number;
}

/**
 * Checks that the world folder `rel` is a real folder reached through real
 * folders only (no link at any component), creating it when `create` is
 * set; resolves with its path and identity. A program that gets the path
 * later (bubblewrap) must compare the identity once it has it open.
 */
export function worldFolder(
  root: string,
  rel: string,
  opts: { create?: boolean } = {},
): WorldFolder {
  return inWorldFolder(root, rel, () => {
    const here = Deno.statSync(".");
    return { path: rel === "" ? root : `${root}/${rel}`, dev: here.dev, ino: here.ino! };
  }, { create: opts.create ?? false });
}

/**
 * Writes the world file `rel` whole: a new file beside it (`O_EXCL`), then
 * renamed over the name, inside its folder (created when missing). A link
 * at the name is replaced, never followed.
 */
export function writeWorldFile(root: string, rel: string, data: Uint8Array | string): void {
  const { dir, name } = parts(rel);
  inWorldFolder(root, dir, () => {
    const tmp = `.${name}.tmp-${crypto.randomUUID()}`;
    try {
      if (typeof data === "string") Deno.writeTextFileSync(tmp, data, { createNew: true });
      else Deno.writeFileSync(tmp, data, { createNew: true });
      Deno.renameSync(tmp, name);
    } catch (e) {
      try {
        Deno.removeSync(tmp);
      } catch { /* not made */ }
      throw e;
    }
  });
}

/**
 * Removes the world entry `rel` (a folder with what it holds; a link itself,
 * never what it points to). Missing: nothing to do.
 */
export function removeWorldEntry(root: string, rel: string): void {
  const { dir, name } = parts(rel);
  try {
    inWorldFolder(root, dir, () => Deno.removeSync(name, { recursive: true }), { create: false });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

/** Renames `from` to `to`, two names in the world folder `dir` (a link is moved, not followed). */
export function renameInWorld(root: string, dir: string, from: string, to: string): void {
  inWorldFolder(root, dir, () => Deno.renameSync(from, to), { create: false });
}

/** Makes a new folder `rel` (its parent created when missing); fails when the name is taken. */
export function makeWorldFolder(root: string, rel: string): void {
  const { dir, name } = parts(rel);
  inWorldFolder(root, dir, () => Deno.mkdirSync(name));
}

/**
 * The text of the world file `rel`, or undefined when there is none. Links
 * are followed only while they stay in the world; anything but a regular
 * file (a folder, a FIFO) is refused.
 */
export function readWorldText(root: string, rel: string): string | undefined {
  try {
    root = Deno.realPathSync(root);
  } catch {
    return undefined;
  }
  try {
    Deno.lstatSync(`${root}/${rel}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
  }
  try {
    return new TextDecoder().decode(readWorldFile(root, `${root}/${rel}`, rel));
  } catch (e) {
    if (e instanceof HostError && /does not exist$/.test(e.message)) return undefined;
    throw e;
  }
}
