/**
 * The host's file watcher for one watched world path (PROTOCOL 5.2): a
 * folder is watched with what is in it at any depth; a file (or a name not
 * there yet) through its folder, so that a file replaced by a rename
 * (`write_atomic`) is still seen. Confined to the world: a path that leaves
 * it (`..`, a link) is refused.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";

/** `path` without `.`, `..` and doubled slashes; null when `..` climbs above `/`. */
function clean(path: string): string | null {
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg !== "..") parts.push(seg);
    else if (parts.pop() === undefined) return null;
  }
  return "/" + parts.join("/");
}

/** A watch of one world path through `Deno.watchFs`. */
export class WorldWatcher {
  private constructor(private watcher: Deno.FsWatcher) {}

  /**
   * Watches `path` (absolute, in the world at `root`); `onChange` gets the
   * world path of each change. Throws -32602 when neither the path nor its
   * folder is a folder of the world.
   */
  static open(root: string, path: string, onChange: (path: string) => void): WorldWatcher {
    const realRoot = Deno.realPathSync(root);
    const world = clean(path);
    if (world === null) throw new HostError("invalid-params", `${path} leaves the world`);
    const inside = (host: string) => {
      const real = Deno.realPathSync(host);
      if (real !== realRoot && !real.startsWith(realRoot + "/")) {
        throw new HostError("invalid-params", `${path} leads out of the world`);
      }
      return real;
    };
    const target = realRoot + (world === "/" ? "" : world);
    let dir: string, file: string | null = null;
    try {
      if (!Deno.statSync(target).isDirectory) throw new Deno.errors.NotADirectory();
      dir = inside(target);
    } catch {
      const parent = target.slice(0, target.lastIndexOf("/")) || "/";
      try {
        dir = inside(parent);
        if (!Deno.statSync(dir).isDirectory) throw new Error();
      } catch (e) {
        if (e instanceof HostError) throw e;
        throw new HostError("invalid-params", `no folder of the world at or above ${path}`);
      }
      file = `${dir}/${target.slice(parent.length + 1)}`;
    }
    const watcher = Deno.watchFs(dir, { recursive: file === null });
    (async () => {
      for await (const event of watcher) {
        for (const changed of event.paths) {
          if (file !== null && changed !== file) continue;
          if (!changed.startsWith(realRoot + "/") && changed !== realRoot) continue;
          onChange(changed === realRoot ? "/" : changed.slice(realRoot.length));
        }
      }
    })().catch(() => {});
    return new WorldWatcher(watcher);
  }

  /** Stops watching. */
  close(): void {
    try {
      this.watcher.close();
    } catch {
      // already closed
    }
  }
}
