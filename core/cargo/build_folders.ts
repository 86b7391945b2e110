/**
 * Where a build runs and writes. A world's builds get folders of their own
 * in the cache, keyed by the world's real path
 * (`<cache>/builds/<toolchain>/<hash>/`: `target/` for cargo, `runner/` for
 * the test runner's cache), bound writable into that world's builds only: no
 * artifact one world's build can write is ever read by another world's build.
 * The crate's folder and the SDK copy are world folders checked to be real
 * folders reached through real folders (`world_files.ts`); the sandbox checks
 * their identity again once they are mounted. A plugin's `source` that is a
 * link is refused. This checkout's own crates (test plugins, the codegen
 * plugin), built without a world, share the toolchain's target folder. The
 * worlds' folders are bounded (`build_folders_kept.ts`).
 *
 * @module
 */

import { cacheDir } from "../paths.ts";
import { sha256 } from "../cache/sha256.ts";
import { relativeTo } from "../../vfs/confined_dir.ts";
import { worldFolder } from "../world/world_files.ts";
import { BuildError, BuildRefused, type Toolchain } from "./toolchain.ts";
import { markUsed, trimBuildFolders } from "./build_folders_kept.ts";

/** A folder to bind: its real path, and the identity it must have once mounted. */
export interface JailFolder {
  path: string;
  /** `<device>:<inode>` checked in the sandbox before the command runs (world folders). */
  identity?: string;
}

/** What a build of one crate may use. */
export interface BuildPlace {
  /** The crate's folder (its real path). */
  dir: JailFolder;
  /** The SDK folder, when there is one. */
  sdk?: JailFolder;
  /** cargo's target folder (writable). */
  target: string;
  /** The test runner's cache inside the sandbox (writable). */
  runnerCache: string;
}

/** The cache folders of the builds of the world at `root` (a real path), or of this checkout. */
export async function buildFolders(
  tc: Toolchain,
  root: string | undefined,
): Promise<{ target: string; runnerCache: string }> {
  if (root === undefined) return { target: tc.targetDir, runnerCache: `${cacheDir()}/jail` };
  const base = `${cacheDir()}/builds/${tc.kind}/${(await sha256(root)).slice(0, 16)}`;
  return { target: `${base}/target`, runnerCache: `${base}/runner` };
}

/**
 * {@link buildFolders}, marked used by the world at `root` (when it is a
 * world's), and the other worlds' folders trimmed to the bound
 * (`build_folders_kept.ts`) in the background.
 */
export async function useBuildFolders(
  tc: Toolchain,
  root: string | undefined,
): Promise<{ target: string; runnerCache: string }> {
  const folders = await buildFolders(tc, root);
  if (root !== undefined) {
    const base = folders.target.slice(0, folders.target.lastIndexOf("/"));
    markUsed(base, root);
    trimBuildFolders(base.slice(0, base.lastIndexOf("/"))).catch(() => {});
  }
  return folders;
}

/**
 * Checks the folder `path`: inside `root` it must be a chain of real
 * folders from the world folder (a link anywhere is refused); outside any
 * world it is taken by its real path.
 */
function checked(root: string | undefined, path: string, what: string): JailFolder {
  if (root !== undefined) {
    const rel = relativeTo(root, path);
    if (rel !== null) {
      let info: Deno.FileInfo | undefined;
      try {
        info = Deno.lstatSync(path);
      } catch { /* missing: said below */ }
      if (!info) throw new BuildError(`${what} does not exist`, `${path}: not found`);
      if (info.isSymlink) {
        throw new BuildRefused(
          `${rel} is a link: refused`,
          `${rel} is a link; a build only reads real folders of the world (a link could lead ` +
            "to another part of the world or out of it). Make it a real folder.",
        );
      }
      try {
        const f = worldFolder(root, rel);
        return { path: f.path, identity: `${f.dev}:${f.ino}` };
      } catch (e) {
        throw new BuildRefused(
          `${rel} is not reached through real folders of the world: refused`,
          `${rel}: ${e instanceof Error ? e.message : e} (a folder on the way is a link?)`,
        );
      }
    }
  }
  try {
    return { path: Deno.realPathSync(path) };
  } catch {
    throw new BuildError(`${what} does not exist`, `${path}: not found`);
  }
}

/**
 * Where a build of the crate in `sourceDir` runs: the crate and the SDK
 * checked (see {@link checked}), the cache folders of `world` (its real
 * path; undefined: this checkout's crates) made.
 */
export async function buildPlace(
  tc: Toolchain,
  sourceDir: string,
  opts: { world?: string; sdkDir?: string },
): Promise<BuildPlace> {
  const root = opts.world === undefined ? undefined : Deno.realPathSync(opts.world);
  const dir = checked(root, sourceDir, sourceDir);
  const sdk = opts.sdkDir === undefined ? undefined : checked(root, opts.sdkDir, opts.sdkDir);
  const folders = await useBuildFolders(tc, root);
  await Deno.mkdir(folders.target, { recursive: true });
  await Deno.mkdir(folders.runnerCache, { recursive: true });
  return { dir, sdk, ...folders };
}
