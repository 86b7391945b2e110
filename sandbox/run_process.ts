/**
 * Which engine runs a process: our preview-1 binding when the component
 * cache made its entry for it (`preview1/run.ts`), else jco's glue
 * (`jco/run.ts`). Both run in the steps of `process/run_skeleton.ts`.
 *
 * @module
 */

import { runJco } from "./jco/run.ts";
import { isPreview1Entry, runPreview1 } from "./preview1/run.ts";
import type { RunProcess } from "./process/process_io.ts";

export type { CommandOptions, Ended, ProcessIo, RunProcess } from "./process/process_io.ts";

/** Runs one process of the cache entry at `dir` on its engine ({@link RunProcess}). */
export const runProcess: RunProcess = (dir, world, env, io, command = {}) =>
  (isPreview1Entry(dir) ? runPreview1 : runJco)(dir, world, env, io, command);
