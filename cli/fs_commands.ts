/**
 * `sausage ls <world> [path]` and `sausage cat <world> <path>`: the
 * filesystem as a process sees it, with `/proc` and `/run` of the running
 * host (or of a transient host when none runs: `/run` is then empty).
 *
 * @module
 */

import { openWorld } from "./world_arg.ts";
import type { Listing } from "../vfs/host_fs.ts";
import { parseArgs, UsageError } from "./args.ts";
import { withWorld } from "./world_session.ts";

/** Usage of `ls`. */
export const LS_USAGE = "sausage ls <world> [path] [--json]";
/** Usage of `cat`. */
export const CAT_USAGE = "sausage cat <world> <path>";

const ERRORS: Record<string, string> = {
  "no-entry": "no such file or folder",
  "not-permitted": "outside the world",
  "access": "permission denied",
  "is-directory": "is a folder",
  "not-directory": "not a folder",
};

function explain(path: string, e: unknown): Error {
  const code = (e as { code?: string; data?: { code?: string } }).data?.code ??
    (e as { code?: string }).code;
  return new Error(
    `${path}: ${code && ERRORS[code] ? ERRORS[code] : (e as Error).message ?? code}`,
  );
}

/** `ls`: a folder's entries (folders end with /), or a file's size. */
export async function ls(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${LS_USAGE}`);
  const world = openWorld(positional[0]);
  const path = positional[1] ?? "/";
  let listing: Listing;
  try {
    listing = await withWorld(world, "ls", () => {}, (_, c) => c.list(path), 1000);
  } catch (e) {
    throw explain(path, e);
  }
  if (flags.has("--json")) {
    console.log(JSON.stringify({ ...listing, stat: { ...listing.stat, ino: undefined } }));
  } else if (listing.entries) {
    for (const e of listing.entries) console.log(e.type === "directory" ? `${e.name}/` : e.name);
  } else console.log(`${path}  ${listing.stat.size} bytes`);
  return 0;
}

/** `cat`: a file's content on stdout. */
export async function cat(args: string[]): Promise<number> {
  const { positional } = parseArgs(args, [], []);
  if (positional.length !== 2) throw new UsageError(`usage: ${CAT_USAGE}`);
  const world = openWorld(positional[0]);
  const path = positional[1];
  let bytes: Uint8Array;
  try {
    bytes = await withWorld(world, "cat", () => {}, (_, c) => c.read(path), 1000);
  } catch (e) {
    throw explain(path, e);
  }
  await Deno.stdout.write(bytes);
  return 0;
}
