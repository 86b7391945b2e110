/**
 * `sausage run <world> [--headless] [--quiet]`: runs a world until SIGINT, SIGTERM or
 * `core.exit` (exit code `EXIT_CODE_CORE_EXIT`), served by `core/control/world_server.ts`. On a terminal it opens the console
 * (`cli/console/`) after the boot calls, until `quit` or Ctrl-D (exit code
 * 0); `--headless`, or a stdin that is not a terminal, runs without it,
 * printing a line per call on stderr unless `--quiet`.
 *
 * @module
 */

import { WorldServer, writeCargoConfig } from "../core/mod.ts";
import { openWorld } from "./world_arg.ts";
import { parseArgs, UsageError } from "./args.ts";
import { HostLock } from "../core/control/host_lock.ts";
import { EXIT_CODE_CORE_EXIT } from "../core/calls/core_api.ts";
import { followCalls } from "./call_lines.ts";
import { buildChanged, localSend, type NotInstalled } from "./start_builds.ts";
import { consoleWanted, type ReportSink, runConsole } from "./console/run_console.ts";

/** Usage of `run`. */
export const RUN_USAGE = "sausage run <world> [--headless] [--quiet]";

/** Runs the subcommand; resolves with the exit code. */
export async function run(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--headless", "--quiet"], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${RUN_USAGE}`);
  const world = openWorld(positional[0]);
  // The world's lock first (a transient host is waited for; a lasting one refuses with its pid).
  const lock = await HostLock.takeLasting(world, "sausage run", (line) => console.error(line));
  // cargo in plugin folders (tests, rust-analyzer): written now, std built in the background.
  await writeCargoConfig(world.root, { skipSysroot: true }).then(
    () => void writeCargoConfig(world.root).catch((e) => console.error(`sausage: ${e.message}`)),
    (e) => console.error(`sausage: .cargo/config.toml not written: ${e.message}`),
  );
  const reports: ReportSink = { to: (line) => console.error(line) };
  const server = await WorldServer.open(world.root, { lock, report: (line) => reports.to(line) });
  server.stopOnSignals();
  const host = server.host;
  // A changed source goes through what `sausage build` does, before the boot calls.
  const local = localSend(host, "run");
  let failed: NotInstalled[] = [];
  await server.start(async () =>
    void (failed = await buildChanged(world, local.send, positional[0]))
  );
  await local.end();
  const interactive = consoleWanted(flags.has("--headless"));
  const count = world.pluginNames().length;
  const broken = failed.length ? `, ${failed.map((f) => f.plugin).join(", ")} not installed` : "";
  console.error(
    `sausage: running ${world.root} (${count} plugin${count === 1 ? "" : "s"}${broken}); ` +
      (interactive ? "quit or Ctrl-D stops it" : "Ctrl-C stops it"),
  );
  // Without the console, a line per call on stderr (the console has log -f).
  const stopLines = interactive || flags.has("--quiet")
    ? () => {}
    : followCalls((f) => host.journal.query(f), (line) => console.error(line));
  const code = interactive ? await runConsole(host, reports) : await server.done;
  stopLines();
  console.error(
    code === EXIT_CODE_CORE_EXIT ? "sausage: core.exit: stopping" : "sausage: stopping",
  );
  // Processes get their grace period to answer (a guest that called
  // core.exit answers its caller) before the connections close.
  await server.shutdown(); // closes the control socket, then releases the lock
  return code;
}
