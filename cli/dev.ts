/**
 * `sausage dev <world>`: runs the world (as `sausage run --headless`) and
 * watches every plugin's `source/`: after a change (edits settle for
 * {@link SETTLE_MS}) it tests, builds and activates that plugin, as
 * `sausage build` does, with cargo's lines and the compiler's text on
 * stderr. A change that does not build, or whose tests fail, or that the
 * checks refuse, leaves the last good version running. Ctrl-C stops it.
 *
 * Plugins added while it runs are not watched: start it again.
 *
 * @module
 */

import { buildMissing, changedPlugins, WorldServer, writeCargoConfig } from "../core/mod.ts";
import { parseArgs, UsageError } from "./args.ts";
import { buildAndActivate, printOutcome } from "./build.ts";
import { buildChanged, localSend } from "./start_builds.ts";
import { isTsPlugin, withTsBuilds } from "./ts_builds.ts";
import { HostLock, WorldLockedError } from "../core/control/host_lock.ts";
import { openWorld } from "./world_arg.ts";

/** Usage of `dev`. */
export const DEV_USAGE = "sausage dev <world>";

/** How long the sources must stay unchanged before a build starts. */
export const SETTLE_MS = 300;

/** Files whose change is not a change of the plugin: build output, lockfiles, editors' files. */
function ignoredPath(rel: string): boolean {
  return rel.split("/").some((p) => p === "target" || p.startsWith(".")) ||
    rel.endsWith("Cargo.lock") || rel.endsWith("~") || /\.sw[a-z]$/.test(rel);
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
  await buildMissing(world, report);
  await writeCargoConfig(world.root, { skipSysroot: true }).catch(() => {});
  const server = await WorldServer.open(world.root, { lock, report });
  server.stopOnSignals();
  const { send, end } = localSend(server.host, "dev");
  await server.start(async () => void await buildChanged(world, send, positional[0]));

  // The real folders of the sources (the example world's are links out of it).
  const sources = new Map<string, string>();
  for (const name of world.pluginNames()) {
    const real = await Deno.realPath(`${world.pluginDir(name)}/source`).catch(() => undefined);
    if (real) sources.set(real, name);
  }
  console.error(
    `sausage: dev: running ${world.root}; watching the source of ${
      [...sources.values()].join(", ") || "no plugin"
    }; Ctrl-C stops it`,
  );
  const watcher = sources.size ? Deno.watchFs([...sources.keys()], { recursive: true }) : null;
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let queue = Promise.resolve();
  const buildPending = () => {
    const names = [...pending];
    pending.clear();
    // Plugins that changed together are activated together (a provider and
    // its consumer changed in one edit pass the checks as a set).
    queue = queue.then(async () => {
      // By content: a save that changed nothing (or a change undone) builds nothing.
      const changed = await changedPlugins(world);
      // TypeScript plugins have no content stamp yet: every save rebuilds them (ts_builds.ts).
      const same = names.filter((n) => !changed.includes(n) && !isTsPlugin(world, n));
      if (same.length) {
        console.error(`sausage: dev: ${same.join(", ")}: same content as the running version`);
      }
      const todo = names.filter((n) => changed.includes(n) || isTsPlugin(world, n));
      if (!todo.length) return;
      console.error(`sausage: dev: ${todo.join(", ")} changed: testing, building, activating`);
      const outcome = await buildAndActivate(withTsBuilds(world, send), todo, {
        partners: () => changedPlugins(world),
        report: (line) => console.error(line),
      });
      printOutcome(outcome.plugins, outcome, true, positional[0]);
    }).catch((e) => console.error(`sausage: dev: ${e instanceof Error ? e.message : e}`));
  };
  const watching = (async () => {
    if (!watcher) return;
    for await (const event of watcher) {
      for (const path of event.paths) {
        for (const [dir, name] of sources) {
          if (!path.startsWith(`${dir}/`) || ignoredPath(path.slice(dir.length + 1))) continue;
          pending.add(name);
        }
      }
      if (pending.size) {
        clearTimeout(timer);
        timer = setTimeout(buildPending, SETTLE_MS);
      }
    }
  })();
  const code = await server.done;
  console.error("sausage: stopping");
  clearTimeout(timer);
  watcher?.close();
  await watching;
  await end();
  await server.shutdown(); // closes the control socket, then releases the lock
  return code;
}
