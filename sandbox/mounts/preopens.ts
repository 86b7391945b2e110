/**
 * The preopened folders of a process, in the order both engines give them
 * to the guest: `/` (the world), the extra ones of a command, `/proc`,
 * `/self`, `/run`. Disk mounts are made once per host folder per sandbox;
 * the world's counts against its disk bound (`disk_mib`).
 *
 * @module
 */

import { DiskBudget } from "../../vfs/disk_budget.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import type { Mount } from "../../vfs/mount.ts";
import { type FsChannel, RemoteMount } from "./remote_mount.ts";
import { CoreSymlinks } from "./core_symlinks.ts";
import type { ExtraPreopen } from "../hop/protocol.ts";
import { SERVED_WORLD } from "../hop/terms.ts";

/** A mount at a guest path. */
export interface Preopen {
  guestPath: string;
  mount: Mount;
}

const disks = new Map<string, Mount>();

/** The world's disk bound in bytes (`disk_mib`; `--disk-bytes` of the sandbox), if any. */
let worldDiskBytes: number | undefined;

/**
 * Sets the disk bound of the world mounts made from now on
 * (`vfs/disk_budget.ts`); with the world's folder, makes its mount now and
 * counts the world in the background, so no call waits for the count (a
 * world already gone is left to the first run, which fails).
 */
export function setWorldDiskBound(bytes: number | undefined, world?: string): void {
  worldDiskBytes = bytes;
  if (bytes === undefined || !world) return;
  const budget = new DiskBudget(world, bytes);
  let mount: DiskMount;
  try {
    mount = new DiskMount(world, { budget });
  } catch {
    // The world was removed (a spare sandbox started as its host stopped): no process of it
    // will run here; one that did would fail to open `/`, made at its run, with why.
    return;
  }
  disks.set(world, mount);
  budget.prime().catch(() => {});
}

/** The disk mount of a host folder, made once per sandbox; a world's counts against its bound. */
function diskMount(hostPath: string, world = false): Mount {
  let mount = disks.get(hostPath);
  if (!mount) {
    const budget = world && worldDiskBytes !== undefined
      ? new DiskBudget(hostPath, worldDiskBytes)
      : undefined;
    mount = new DiskMount(hostPath, { budget });
    disks.set(hostPath, mount);
  }
  return mount;
}

/**
 * The preopens of one process, in order; with `only`, just `extra` (a
 * command given its folders whole, `RunMessage.onlyPreopens`).
 */
export function processPreopens(
  world: string,
  fs: FsChannel,
  extra: ExtraPreopen[] = [],
  only = false,
): Preopen[] {
  const extras = extra.map((p) => ({
    guestPath: p.guestPath,
    mount: new CoreSymlinks(diskMount(p.hostPath), `preopen:${p.guestPath}`, fs),
  }));
  if (only) return extras;
  const root = world === SERVED_WORLD
    ? new RemoteMount("world", true, fs)
    : new CoreSymlinks(diskMount(world, true), "world", fs);
  return [
    { guestPath: "/", mount: root },
    ...extras,
    { guestPath: "/proc", mount: new RemoteMount("proc", true, fs) },
    { guestPath: "/self", mount: new RemoteMount("self", true, fs) },
    { guestPath: "/run", mount: new RemoteMount("run", true, fs) },
  ];
}
