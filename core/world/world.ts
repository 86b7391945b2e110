/**
 * The world folder (section 3): where plugins, state and config live, and the
 * rules for plugin names.
 *
 * @module
 */

import { readWorldText } from "./world_files.ts";
import { HostError } from "../../rpc/errors.ts";
import { sourceLanguage } from "../typescript/ts_source.ts";
import { type Component, RecentComponents } from "./recent_components.ts";

const NAME = /^[a-z0-9_-]{1,64}$/;

/** Names the core owns: its API (`core.*`) and its native plugin (`cargo.build`). */
const RESERVED = new Set(["core", "cargo"]);

/**
 * Why a plugin name is not valid, or null when it is. Every place where a
 * name enters (activation, revert, builds, the world's folders) asks here.
 */
export function pluginNameProblem(name: string): string | null {
  if (RESERVED.has(name)) return `"${name}" is reserved for the core: choose another plugin name`;
  if (!NAME.test(name)) {
    return `plugin names are 1 to 64 of a-z, 0-9, - and _: ${JSON.stringify(name)} is not`;
  }
  return null;
}

/** What tells one file from another, and a file from itself after a change. */
function fileIdentity(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
}

/** A world folder. Paths are absolute host paths. */
export class World {
  /** The absolute path of the world folder. */
  readonly root: string;
  /** Each plugin's resolved `plugin.wasm`, by the identity of the file it led to. */
  private resolved = new Map<string, { identity: string; real: string }>();
  /** What the last `stat` of each plugin's `plugin.wasm` said, for the calls right after it. */
  private recent = new RecentComponents();

  /** Opens a world; throws a one-line error when the folder is missing. */
  constructor(path: string) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(path);
    } catch {
      throw new Error(`world not found: ${path} does not exist`);
    }
    if (!info.isDirectory) throw new Error(`world not found: ${path} is not a folder`);
    this.root = Deno.realPathSync(path);
  }

  /**
   * `state/core/`, created on demand, owner-only (0700, like `state/`). It and
   * `state/` must be real folders of the world: a link there would send the
   * core's writes elsewhere.
   */
  coreState(): string {
    const dir = `${this.root}/state/core`;
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const d of [`${this.root}/state`, dir]) {
      const info = Deno.lstatSync(d);
      if (!info.isDirectory) {
        throw new Error(`${d} must be a folder of the world, not a link: move it away`);
      }
      // Owner-only: the journal holds every call's params (an older world's folders are tightened).
      if (((info.mode ?? 0) & 0o077) !== 0) Deno.chmodSync(d, (info.mode ?? 0o700) & 0o700);
    }
    return dir;
  }

  /** The journal file. */
  journalPath(): string {
    return `${this.coreState()}/journal.sqlite`;
  }

  /** The file where a running host says how to reach it. */
  hostFile(): string {
    return `${this.root}/state/core/host.json`;
  }

  /** The folder of a plugin. */
  pluginDir(name: string): string {
    return `${this.root}/plugins/${name}`;
  }

  /** The current component of a plugin (its real path); a JSON-RPC error -32001 when there is none. */
  pluginWasm(name: string): string {
    return this.pluginComponent(name).path;
  }

  /**
   * The current component of a plugin: its real path and what `stat` said of
   * it just now (the cache's hash needs no second `stat`); a JSON-RPC error
   * -32001 when there is none.
   */
  pluginComponent(name: string): Component {
    const problem = pluginNameProblem(name);
    if (problem) throw new HostError("no-such-plugin", `no such plugin: ${problem}`);
    const path = `${this.pluginDir(name)}/plugin.wasm`;
    let real: string;
    let identity: string;
    let info: Deno.FileInfo;
    try {
      // One stat on every call; the path is resolved again (a readlink per
      // folder on the way, 6 here) only when it leads to another file than
      // last time, which a planted link always does.
      info = Deno.statSync(path);
      identity = fileIdentity(info);
      const known = this.resolved.get(name);
      if (known?.identity === identity) return { path: known.real, info };
      real = Deno.realPathSync(path);
    } catch {
      // A Rust crate's or a TypeScript plugin's source.
      const source = sourceLanguage(`${this.pluginDir(name)}/source`) !== undefined;
      let failure = "";
      try {
        failure = readWorldText(this.root, `state/core/build-failures/${name}.txt`) ?? "";
      } catch { /* it never failed at start */ }
      if (source && failure) {
        // The file: the reason on its first line, then the compiler's or the tests' text.
        const [why, ...output] = failure.trim().split("\n");
        throw new HostError(
          "no-such-plugin",
          `${name} is not installed, so it cannot be called: ${why} (fix plugins/${name}/source; ` +
            `\`sausage build ${this.root} ${name}\` tests, builds and activates it)`,
          { output: output.join("\n") },
        );
      }
      throw new HostError(
        "no-such-plugin",
        source
          ? `no such plugin: ${name} is not built (no plugins/${name}/plugin.wasm): ` +
            `build it with \`sausage build ${this.root} ${name}\` (or call cargo.build {"plugin": "${name}"}, then core.activate)`
          : `no such plugin: ${name} (no plugins/${name}/plugin.wasm)`,
      );
    }
    if (!real.startsWith(this.root + "/")) {
      throw new HostError(
        "no-such-plugin",
        `no such plugin: ${name} (plugins/${name}/plugin.wasm leads outside the world: refused)`,
      );
    }
    this.resolved.set(name, { identity, real });
    return { path: real, info };
  }

  /**
   * The component a call runs: {@link pluginComponent}, whose `stat` stands
   * for the calls of the next 100 ms (`RECHECK_MS`; a failure is not kept).
   * After {@link replaced} the next call checks again.
   */
  currentComponent(name: string): Component {
    return this.recent.get(name, () => this.pluginComponent(name));
  }

  /**
   * Says that `plugins/<name>/plugin.wasm` was just replaced (an activation,
   * a revert, a change the watcher saw): the next call checks it again.
   */
  replaced(name: string): void {
    this.recent.forget(name);
  }

  /** The names of the plugin folders, sorted. */
  pluginNames(): string[] {
    try {
      return [...Deno.readDirSync(`${this.root}/plugins`)]
        .filter((e) => e.isDirectory && pluginNameProblem(e.name) === null)
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  }
}
