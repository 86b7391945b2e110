/**
 * The folder of one process: `info.json` and `log` from the core, and the
 * files the process wrote to its `/self`. Seen read-only as `/proc/<pid>/`
 * and writable as `/self` by the process itself; the names `info.json`, `log`
 * and `fs` belong to the core and can't be written. `fs/` is there while the
 * process serves files (PROTOCOL 5.1): its reads and writes go to the process.
 *
 * @module
 */

import type { DirEntry, FileHandle, Instant, Mount, OpenOptions, Stat } from "./mount.ts";
import { FsError } from "./mount.ts";
import type { MemMount } from "./mem_mount.ts";
import type { ProcSource } from "./proc_source.ts";
import { ServedMount } from "./served_mount.ts";
import { render, virtualDirStat, VirtualFile, virtualStat } from "./virtual_file.ts";

/** The names in a process folder that belong to the core. */
export const RESERVED = ["info.json", "log", "fs"];

function topName(path: string): string {
  const cut = path.indexOf("/");
  return cut < 0 ? path : path.slice(0, cut);
}

/** A process folder as a mount (its root is the folder). */
export class ProcessDir implements Mount {
  /**
   * @param source the core's state
   * @param pid the process
   * @param writable true for `/self`, false for `/proc/<pid>/`
   */
  constructor(private source: ProcSource, readonly pid: string, readonly writable: boolean) {}

  private files(): MemMount {
    const files = this.source.selfFiles(this.pid);
    if (!files) throw new FsError("no-entry", `${this.pid} has ended`);
    return files;
  }

  private core(name: string): (() => string) | undefined {
    if (name === "info.json") {
      return () => JSON.stringify(this.source.info(this.pid) ?? null, null, 2) + "\n";
    }
    if (name === "log") {
      return () => (this.source.log(this.pid) ?? []).map((l) => l + "\n").join("");
    }
    return undefined;
  }

  /**
   * The served mount and the path in it, for a path under `fs`; null for
   * other paths. Without served files, `fs` is not there (a write to it
   * through `/self` fails with `access`: the name is the core's).
   */
  private served(path: string, writes = false): { mount: ServedMount; rest: string } | null {
    if (topName(path) !== "fs") return null;
    const files = this.source.served?.(this.pid);
    if (!files) {
      if (writes && this.writable) throw new FsError("access", "fs belongs to the core");
      throw new FsError("no-entry", `${this.pid} serves no files`);
    }
    return { mount: new ServedMount(files, `proc/${this.pid}/fs`), rest: path.slice(3) };
  }

  private guard(path: string): void {
    if (!this.writable) throw new FsError("read-only");
    if (RESERVED.includes(topName(path))) {
      throw new FsError("access", `${topName(path)} belongs to the core`);
    }
  }

  async stat(path: string, follow = true): Promise<Stat> {
    const files = this.files();
    if (path === "") return virtualDirStat(`proc/${this.pid}`);
    const core = this.core(path);
    if (core) return virtualStat(`proc/${this.pid}/${path}`, (await render(core)).length);
    const served = this.served(path);
    if (served) return served.mount.stat(served.rest);
    return files.stat(path, follow);
  }

  async open(path: string, opts: OpenOptions): Promise<FileHandle | null> {
    const files = this.files();
    if (path === "") {
      if (opts.write || opts.truncate || opts.create && opts.exclusive) {
        throw new FsError("is-directory");
      }
      return null;
    }
    const core = this.core(path);
    if (core) {
      if (opts.write || opts.truncate || opts.create) {
        throw new FsError(this.writable ? "access" : "read-only", `${path} belongs to the core`);
      }
      if (opts.directory) throw new FsError("not-directory");
      return new VirtualFile(`proc/${this.pid}/${path}`, core, await render(core), path === "log");
    }
    const served = this.served(path, opts.write || opts.truncate || opts.create);
    if (served) return served.mount.open(served.rest, opts);
    if (opts.write || opts.truncate || opts.create) this.guard(path);
    return files.open(path, opts);
  }

  readDir(path: string): DirEntry[] | Promise<DirEntry[]> {
    const files = this.files();
    const served = this.served(path);
    if (served) return served.mount.readDir(served.rest);
    if (path !== "") return files.readDir(path);
    const own: DirEntry[] = [{ name: "info.json", type: "regular-file" }, {
      name: "log",
      type: "regular-file",
    }];
    if (this.source.served?.(this.pid)) own.push({ name: "fs", type: "directory" });
    return [...own, ...files.readDir("").filter((e) => !RESERVED.includes(e.name))]
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  mkdir(path: string): void {
    this.guard(path);
    this.files().mkdir(path);
  }
  rmdir(path: string): void {
    this.guard(path);
    this.files().rmdir(path);
  }
  unlink(path: string): void {
    this.guard(path);
    this.files().unlink(path);
  }
  rename(from: string, to: string): void {
    this.guard(from);
    this.guard(to);
    this.files().rename(from, to);
  }
  symlink(target: string, path: string): void {
    this.guard(path);
    this.files().symlink(target, path);
  }
  link(from: string, to: string, follow: boolean): void {
    this.guard(from);
    this.guard(to);
    this.files().link(from, to, follow);
  }
  readlink(path: string): string {
    return this.files().readlink(path);
  }
  setTimes(path: string, atime: Instant | null, mtime: Instant | null, follow = true): void {
    this.guard(path);
    this.files().setTimes(path, atime, mtime, follow);
  }
}
