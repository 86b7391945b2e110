/**
 * `/proc`: read-only, served by the core (section 5), but for the files a
 * process serves at `<pid>/fs/` (5.1). `core/` has the
 * contract, the graph, the locks and each plugin's interface; `<pid>/` is the
 * folder of each running process.
 *
 * @module
 */

import {
  type DirEntry,
  type FileHandle,
  FsError,
  type OpenOptions,
  ReadOnlyMount,
  type Stat,
} from "./mount.ts";
import { ProcessDir } from "./process_dir.ts";
import type { ProcSource } from "./proc_source.ts";
import { type Content, render, virtualDirStat, VirtualFile, virtualStat } from "./virtual_file.ts";

const PLUGIN_FILES = ["client.rs", "client.ts", "discover.json"] as const;

/** What a path of `/proc` names. */
type Node =
  | { kind: "dir"; list: () => DirEntry[] }
  | { kind: "file"; content: Content; live?: boolean }
  | { kind: "process"; dir: ProcessDir; rest: string };

const dirs = (names: string[]): DirEntry[] => names.map((name) => ({ name, type: "directory" }));
const files = (names: string[]): DirEntry[] =>
  names.map((name) => ({ name, type: "regular-file" }));

/** The `/proc` mount. */
export class ProcMount extends ReadOnlyMount {
  /** @param source the core's state */
  constructor(private source: ProcSource) {
    super();
  }

  private node(path: string): Node {
    const parts = path === "" ? [] : path.split("/");
    const s = this.source;
    if (parts.length === 0) return { kind: "dir", list: () => dirs(["core", ...s.pids()]) };
    if (parts[0] !== "core") {
      if (s.info(parts[0]) === undefined) throw new FsError("no-entry", `no process ${parts[0]}`);
      return {
        kind: "process",
        dir: new ProcessDir(s, parts[0], false),
        rest: parts.slice(1).join("/"),
      };
    }
    const core = s.coreFiles();
    if (parts.length === 1) {
      return { kind: "dir", list: () => [...files(Object.keys(core)), ...dirs(["plugins"])] };
    }
    if (parts.length === 2 && parts[1] in core) return { kind: "file", content: core[parts[1]] };
    if (parts[1] !== "plugins") throw new FsError("no-entry");
    if (parts.length === 2) return { kind: "dir", list: () => dirs(s.plugins()) };
    if (!s.plugins().includes(parts[2])) throw new FsError("no-entry", `no plugin ${parts[2]}`);
    if (parts.length === 3) return { kind: "dir", list: () => files([...PLUGIN_FILES]) };
    const file = parts[3] as typeof PLUGIN_FILES[number];
    if (parts.length === 4 && PLUGIN_FILES.includes(file)) {
      return { kind: "file", content: () => s.pluginFile(parts[2], file) };
    }
    throw new FsError("no-entry");
  }

  async stat(path: string): Promise<Stat> {
    const n = this.node(path);
    if (n.kind === "process") return n.dir.stat(n.rest);
    if (n.kind === "dir") return virtualDirStat(`proc/${path}`);
    return virtualStat(`proc/${path}`, (await this.rendered(n.content)).length);
  }

  private async rendered(content: Content): Promise<Uint8Array> {
    try {
      return await render(content);
    } catch (e) {
      throw new FsError("io", e instanceof Error ? e.message : String(e));
    }
  }

  async open(path: string, opts: OpenOptions): Promise<FileHandle | null> {
    const writes = opts.write || opts.truncate || opts.create;
    // Served files take writes (PROTOCOL 5.1): the serving process decides.
    if (writes && !/^[^/]+\/fs(\/|$)/.test(path)) throw new FsError("read-only");
    const n = this.node(path);
    if (n.kind === "process") return n.dir.open(n.rest, opts);
    if (writes) throw new FsError("read-only");
    if (n.kind === "dir") return null;
    if (opts.directory) throw new FsError("not-directory");
    return new VirtualFile(`proc/${path}`, n.content, await this.rendered(n.content), false);
  }

  readDir(path: string): DirEntry[] | Promise<DirEntry[]> {
    const n = this.node(path);
    if (n.kind === "process") return n.dir.readDir(n.rest);
    if (n.kind === "file") throw new FsError("not-directory");
    return n.list();
  }

  readlink(path: string): string {
    this.node(path);
    throw new FsError("invalid", "not a symlink");
  }
}
