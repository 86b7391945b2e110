/**
 * Which engine runs a process: our preview-1 binding when the component
 * cache made its entry for it (`preview1/run.ts`), else jco's glue
 * (`jco/run.ts`). Both run in the steps of `process/run_skeleton.ts`.
 *
 * @module
 */

import { runJco } from "./jco/run.ts";
import { isPreview1Entry, runPreview1 } from "./preview1/run.ts";
import type { CommandOptions, Ended, ProcessIo } from "./process/process_io.ts";

export type { CommandOptions, Ended, ProcessIo } from "./process/process_io.ts";

/**
 * Runs one process of the cache entry at `dir` to its end, in the world
 * folder `world` (or `SERVED_WORLD`), with `env`; a command adds `command`.
 */
export function runProcess(
  dir: string,
  world: string,
  env: [string, string][],
  io: ProcessIo,
  command: CommandOptions = {},
): Promise<Ended> {
  if (isPreview1Entry(dir)) return runPreview1(dir, world, env, io, command);
  return runJco(dir, world, env, io, command);
}
