/**
 * `sausage dev <world>`: runs the world (as `sausage run --headless`) and
 * watches `plugins/`: after a change (edits settle for {@link SETTLE_MS})
 * it tests, builds and activates the plugins whose source changed, as
 * `sausage build` does, with cargo's lines and the compiler's text on
 * stderr. A change that does not build, or whose tests fail, or that the
 * checks refuse, leaves the last good version running. Ctrl-C stops it.
 *
 * It follows the world, not the list it started with: a plugin added
 * (`sausage new <world> <plugin>`, a copy, a rename) is built, tested,
 * activated and watched; one removed is no longer watched. Sources that
 * are links out of the world (the example world's) are watched where they
 * lead.
 *
 * @module
 */

import { changedPlugins, WorldServer, writeCargoConfig } from "../core/mod.ts";
import { parseArgs, UsageError } from "./args.ts";
import { buildAndActivate, printOutcome } from "./build.ts";
import { buildChanged, localSend } from "./start_builds.ts";
import { HostLock, WorldLockedError } from "../core/control/host_lock.ts";
import { openWorld } from "./world_arg.ts";
import type { World } from "../core/world/world.ts";
import { staleSources } from "../core/cargo/world_build.ts";
import { keepCompilerLoaded } from "../core/typescript/ts_compiler.ts";
import { isTsSource } from "../core/typescript/ts_source.ts";

/** Usage of `dev`. */
export const DEV_USAGE = "sausage dev <world>";

/** How long the sources must stay unchanged before a build starts. */
export const SETTLE_MS = 100;

/** Files whose change is not a change of the plugin: build output, lockfiles, editors' files. */
function ignoredPath(rel: string): boolean {
  return rel.split("/").some((p) => p === "target" || p.startsWith(".")) ||
    rel.endsWith("Cargo.lock") || rel.endsWith("~") || /\.sw[a-z]$/.test(rel);
}

/** The plugins of `world` with a source, and the real folder of each source. */
async function sourcesOf(world: World): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of world.pluginNames()) {
    const real = await Deno.realPath(`${world.pluginDir(name)}/source`).catch(() => undefined);
    if (real) out.set(name, real);
  }
  return out;
}

/**
 * Watches the plugins of a world: `plugins/` itself (recursively), and each
 * source that is a link out of it where it leads. Calls `changed(name)` for
 * an edit of a plugin's source, `world()` when a plugin folder or its
 * `source` appeared, went or was renamed.
 */
class PluginWatcher {
  #outside = new Map<string, { dir: string; watcher: Deno.FsWatcher }>();
  #inside: Deno.FsWatcher | null = null;
  #loops: Promise<void>[] = [];

  constructor(
    readonly plugins: string,
    readonly changed: (name: string) => void,
    readonly world: () => void,
  ) {}

  /** Starts watching `plugins/` and the sources in `sources` that lead out of it. */
  start(sources: Map<string, string>): void {
    this.#inside = Deno.watchFs(this.plugins, { recursive: true });
    this.#loops.push(this.#follow(this.#inside, (path) => this.#inWorld(path)));
    this.follow(sources);
  }

  /** Watches the sources of `sources` that lead out of `plugins/`, and no others. */
  follow(sources: Map<string, string>): void {
    for (const [name, w] of this.#outside) {
      if (sources.get(name) !== w.dir) {
        w.watcher.close();
        this.#outside.delete(name);
      }
    }
    for (const [name, dir] of sources) {
      if (dir.startsWith(`${this.plugins}/`) || this.#outside.has(name)) continue;
      const watcher = Deno.watchFs(dir, { recursive: true });
      this.#outside.set(name, { dir, watcher });
      this.#loops.push(this.#follow(watcher, (path) => {
        if (path.startsWith(`${dir}/`) && !ignoredPath(path.slice(dir.length + 1))) {
          this.changed(name);
        }
      }));
    }
  }

  /** An event's path under `plugins/`. */
  #inWorld(path: string): void {
    if (!path.startsWith(`${this.plugins}/`)) return;
    const [name, sub, ...rest] = path.slice(this.plugins.length + 1).split("/");
    if (sub === undefined || (sub === "source" && rest.length === 0)) this.world();
    else if (sub === "source" && !ignoredPath(rest.join("/"))) this.changed(name);
  }

  async #follow(watcher: Deno.FsWatcher, on: (path: string) => void): Promise<void> {
    try {
      for await (const event of watcher) for (const path of event.paths) on(path);
    } catch { /* closed */ }
  }

  /** Stops every watcher. */
  async close(): Promise<void> {
    this.#inside?.close();
    for (const w of this.#outside.values()) w.watcher.close();
    await Promise.all(this.#loops);
  }
}

/** Runs the subcommand; resolves with the exit code. */
export async function dev(args: string[]): Promise<number> {
  const { positional } = parseArgs(args, [], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${DEV_USAGE}`);
  const world = openWorld(positional[0]);
  const report = (line: string) => console.error(line);
  const lock = await HostLock.takeLasting(world, "sausage dev", report).catch((e) => {
    if (!(e instanceof WorldLockedError)) throw e;
    throw new Error(`${e.message}, or use \`sausage build <world> <plugin>\` against it`);
  });
  await writeCargoConfig(world.root, { skipSysroot: true }).catch(() => {});
  const server = await WorldServer.open(world.root, { lock, report });
  server.stopOnSignals();
  const { send, end } = localSend(server.host, "dev");
  // Every save of a TypeScript plugin builds it: its compiler stays loaded (in a worker), and
  // loads now, beside the start, when the world has one.
  keepCompilerLoaded(
    world.pluginNames().some((n) => isTsSource(`${world.pluginDir(n)}/source`)),
  );
  await server.start(async () => void await buildChanged(world, send, positional[0]));

  await Deno.mkdir(`${world.root}/plugins`, { recursive: true });
  let sources = await sourcesOf(world);
  const pending = new Set<string>();
  let worldChanged = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(buildPending, SETTLE_MS);
  };
  const watcher = new PluginWatcher(
    await Deno.realPath(`${world.root}/plugins`),
    (name) => void (pending.add(name), settle()),
    () => void (worldChanged = true, settle()),
  );
  watcher.start(sources);
  console.error(
    `sausage: dev: running ${world.root}; watching the source of ${
      [...sources.keys()].join(", ") || "no plugin"
    } and plugins/ for new ones; Ctrl-C stops it`,
  );
  let queue = Promise.resolve();
  function buildPending(): void {
    const names = [...pending];
    const rescan = worldChanged;
    pending.clear();
    worldChanged = false;
    // Plugins that changed together are activated together (a provider and
    // its consumer changed in one edit pass the checks as a set).
    queue = queue.then(async () => {
      if (rescan) {
        const now = await sourcesOf(world);
        const added = [...now.keys()].filter((n) => !sources.has(n));
        const gone = [...sources.keys()].filter((n) => !now.has(n));
        sources = now;
        watcher.follow(now);
        if (gone.length) {
          console.error(`sausage: dev: ${gone.join(", ")}: gone from plugins/, no longer watched`);
        }
        if (added.length) {
          console.error(`sausage: dev: ${added.join(", ")}: new in plugins/, watched`);
          names.push(...added.filter((n) => !names.includes(n)));
        }
      }
      const watched = names.filter((n) => sources.has(n));
      if (!watched.length) return;
      // By content: a save that changed nothing (or a change undone) builds nothing.
      const stale = await staleSources(world);
      const todo = watched.filter((n) => stale.some((s) => s.name === n));
      const same = watched.filter((n) => !todo.includes(n));
      if (same.length) {
        console.error(`sausage: dev: ${same.join(", ")}: same content as the running version`);
      }
      if (!todo.length) return;
      if (todo.some((n) => stale.find((s) => s.name === n)?.why === "no plugin.wasm")) {
        // A new plugin: as at start (one that fails answers its calls with why).
        await buildChanged(world, send, positional[0], todo);
        return;
      }
      console.error(`sausage: dev: ${todo.join(", ")} changed: testing, building, activating`);
      const outcome = await buildAndActivate(send, todo, {
        partners: () => changedPlugins(world),
        report: (line) => console.error(line),
      });
      printOutcome(outcome.plugins, outcome, true, positional[0]);
    }).catch((e) => console.error(`sausage: dev: ${e instanceof Error ? e.message : e}`));
  }
  const code = await server.done;
  console.error("sausage: stopping");
  clearTimeout(timer);
  await watcher.close();
  await queue;
  await end();
  await server.shutdown(); // closes the control socket, then releases the lock
  return code;
}
