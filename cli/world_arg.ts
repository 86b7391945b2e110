/**
 * The `<world>` argument of the subcommands: a folder that is a world (it
 * has `plugins/` or `config/`). Any other folder is refused with what to do,
 * never turned into a world (a host would create `state/core/` in it).
 *
 * @module
 */

import { World } from "../core/world/world.ts";

function isFolder(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** True when `path` is a world folder: it has `plugins/` or `config/`. */
export function isWorld(path: string): boolean {
  return isFolder(`${path}/plugins`) || isFolder(`${path}/config`);
}

/** Opens the world at `path`; throws a one-line error when it is missing or not a world. */
export function openWorld(path: string): World {
  const world = new World(path); // says when the folder is missing
  if (!isWorld(world.root)) {
    throw new Error(
      `${path} is not a world (no plugins/ or config/ folder): make one with \`sausage new ${path}\`, ` +
        "or give the path of a world",
    );
  }
  return world;
}
