/**
 * The preopened folders of a process, in the order both engines give them
 * to the guest: `/` (the world), the extra ones of a command, `/proc`,
 * `/self`, `/run`. Disk mounts are made once per host folder per sandbox.
 *
 * @module
 */

import { DiskMount } from "../vfs/disk_mount.ts";
import type { Mount } from "../vfs/mount.ts";
import { type FsChannel, RemoteMount } from "./remote_mount.ts";
import { CoreSymlinks } from "./core_symlinks.ts";
import type { ExtraPreopen } from "./protocol.ts";

/** A mount at a guest path. */
export interface Preopen {
  guestPath: string;
  mount: Mount;
}

const disks = new Map<string, Mount>();

/** The disk mount of a host folder, made once per sandbox. */
function diskMount(hostPath: string): Mount {
  let mount = disks.get(hostPath);
  if (!mount) {
    mount = new DiskMount(hostPath);
    disks.set(hostPath, mount);
  }
  return mount;
}

/** The preopens of one process, in order. */
export function processPreopens(
  world: string,
  fs: FsChannel,
  extra: ExtraPreopen[] = [],
): Preopen[] {
  return [
    { guestPath: "/", mount: new CoreSymlinks(diskMount(world), "world", fs) },
    ...extra.map((p) => ({
      guestPath: p.guestPath,
      mount: new CoreSymlinks(diskMount(p.hostPath), `preopen:${p.guestPath}`, fs),
    })),
    { guestPath: "/proc", mount: new RemoteMount("proc", false, fs) },
    { guestPath: "/self", mount: new RemoteMount("self", true, fs) },
    { guestPath: "/run", mount: new RemoteMount("run", true, fs) },
  ];
}
