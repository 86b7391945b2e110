/**
 * `sausage ls <world> [path]` and `sausage cat <world> <path>`: the
 * filesystem as a process sees it, with `/proc` and `/run` of the running
 * host (or of a transient host when none runs: `/run` is then empty).
 *
 * @module
 */

import type { Host, World } from "../core/mod.ts";
import { openWorld } from "./world_arg.ts";
import { fromBase64 } from "../rpc/base64.ts";
import type { Listing } from "../vfs/host_fs.ts";
import { statFromWire, type WireStat } from "../vfs/wire.ts";
import { parseArgs, UsageError } from "./args.ts";
import type { HostClient } from "../core/host_client.ts";
import { reachHost, release } from "../core/reach_host.ts";

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

/** Runs `f` against the running host, or a transient one (`core/reach_host.ts`). */
async function withFs<T>(
  world: World,
  command: string,
  remote: (c: HostClient) => Promise<T>,
  local: (h: Host) => Promise<T>,
): Promise<T> {
  const reached = await reachHost(world, {
    command: `sausage ${command}`,
    host: { sandboxes: 1 },
    report: (line) => console.error(line),
  });
  try {
    return await (reached.client ? remote(reached.client) : local(reached.host));
  } finally {
    await release(reached, 1000);
  }
}

function explain(path: string, e: unknown): Error {
  const code = (e as { code?: string; data?: { code?: string } }).data?.code ??
    (e as { code?: string }).code;
  return new Error(
    `${path}: ${code && ERRORS[code] ? ERRORS[code] : (e as Error).message ?? code}`,
  );
}

async function remoteCall(c: HostClient, method: string, path: string): Promise<unknown> {
  const r = await c.send(method, { path });
  if (r.error) throw r.error;
  return r.result;
}

/** `ls`: a folder's entries (folders end with /), or a file's size. */
export async function ls(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], []);
  if (positional.length < 1 || positional.length > 2) throw new UsageError(`usage: ${LS_USAGE}`);
  const world = openWorld(positional[0]);
  const path = positional[1] ?? "/";
  let listing: Listing;
  try {
    listing = await withFs(
      world,
      "ls",
      async (c) => {
        const l = await remoteCall(c, "$/ls", path) as Listing & { stat: WireStat };
        return { ...l, stat: statFromWire(l.stat) };
      },
      (h) => h.fs.list(path),
    );
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
    bytes = await withFs(
      world,
      "cat",
      async (c) => fromBase64(await remoteCall(c, "$/cat", path) as string),
      (h) => h.fs.read(path),
    );
  } catch (e) {
    throw explain(path, e);
  }
  await Deno.stdout.write(bytes);
  return 0;
}
