/**
 * The core, for the commands that run a world in this process (`run`, `dev`,
 * `build`, `import`, `methods`, `ls`/`cat`, `test`, the console): the host,
 * its control socket, the builds at start and the test runner.
 *
 * Loading it loads the whole host. The light commands (`call`, `ps`, `log`,
 * `cache`, `completions`) and the client of a running host import only the
 * small files they need (`world.ts`, `journal.ts`, `control_path.ts`, …)
 * and stay fast.
 *
 * @module
 */

export { Host } from "./host.ts";
export type { HostOptions } from "./host_options.ts";
export { WorldClient } from "./control/world_client.ts";
export { WorldServer } from "./control/world_server.ts";
export { ControlServer } from "./control/control_server.ts";
export { pluginNameProblem, World } from "./world/world.ts";
export type { Entry, LogFilter } from "./journal/journal.ts";
export type { ProcessInfo } from "./processes/process.ts";
export { changedPlugins, staleSources } from "./cargo/world_build.ts";
export { writeCargoConfig } from "./cargo/author_config.ts";
export { isLibtestHarness, runTests, TestArgsError } from "./test_runner/mod.ts";
