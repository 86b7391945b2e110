/**
 * What the core shows in `/proc`: the interface between the virtual files
 * and the host's state, so the mounts know nothing of processes or locks.
 *
 * @module
 */

import type { MemMount } from "./mem_mount.ts";
import type { ServedFiles } from "./served_mount.ts";

/** The files of `/proc/core/plugins/<name>/`. */
export type PluginFile = "discover.json" | "client.rs" | "client.ts";
/** The core's state, as the `/proc` and `/self` mounts read it. */
export interface ProcSource {
  /** The pids of the running processes. */
  pids(): string[];
  /** The `info.json` of a process, or undefined when it does not run. */
  info(pid: string): unknown | undefined;
  /** The journal lines of a running process so far, or undefined. */
  log(pid: string): string[] | undefined;
  /** The files a running process wrote to its `/self`, or undefined. */
  selfFiles(pid: string): MemMount | undefined;
  /** The files a running process serves at `/proc/<pid>/fs/` (PROTOCOL 5.1), or undefined. */
  served?(pid: string): ServedFiles | undefined;
  /** The files of `/proc/core/` other than `plugins/`, by name. */
  coreFiles(): Record<string, () => string | Promise<string>>;
  /** The plugin names of `/proc/core/plugins/`. */
  plugins(): string[];
  /**
   * `discover.json`, `client.rs` or `client.ts` of a plugin; rejects with a
   * message when it cannot be made.
   */
  pluginFile(name: string, file: PluginFile): Promise<string>;
}
