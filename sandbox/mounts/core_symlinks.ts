/**
 * A disk mount of a process whose symlinks the core makes. Deno creates
 * symlinks only with unscoped read and write permissions (a link's target
 * is resolved only when the link is used), which sandboxes rightly do not
 * have; so `symlink` goes over the sandbox's pipe to the core, whose own
 * mount of the same folder checks it as every write is checked (the new
 * name made inside the folder it goes into, a target that is absolute or
 * climbs out of the world refused). Everything else runs here.
 *
 * @module
 */

import type { Instant, Mount, OpenOptions } from "../../vfs/mount.ts";
import type { FsChannel } from "./remote_mount.ts";
import type { RemoteMountName } from "../hop/protocol.ts";

/** A mount whose `symlink` the core performs, the rest by `inner`. */
export class CoreSymlinks implements Mount {
  /**
   * @param inner the sandbox's mount of the folder
   * @param name the core's name for the same folder
   * @param channel the process's pipe to the core
   */
  constructor(
    private inner: Mount,
    private name: RemoteMountName,
    private channel: FsChannel,
  ) {}

  get writable(): boolean {
    return this.inner.writable;
  }
  stat(path: string, follow: boolean) {
    return this.inner.stat(path, follow);
  }
  open(path: string, opts: OpenOptions) {
    return this.inner.open(path, opts);
  }
  readDir(path: string) {
    return this.inner.readDir(path);
  }
  mkdir(path: string) {
    return this.inner.mkdir(path);
  }
  rmdir(path: string) {
    return this.inner.rmdir(path);
  }
  unlink(path: string) {
    return this.inner.unlink(path);
  }
  rename(from: string, to: string) {
    return this.inner.rename(from, to);
  }
  async symlink(target: string, path: string): Promise<void> {
    await this.channel.request(this.name, { method: "symlink", args: [target, path] });
  }
  link(from: string, to: string, follow: boolean) {
    return this.inner.link(from, to, follow);
  }
  readlink(path: string) {
    return this.inner.readlink(path);
  }
  setTimes(path: string, atime: Instant | null, mtime: Instant | null, follow: boolean) {
    return this.inner.setTimes(path, atime, mtime, follow);
  }
}
