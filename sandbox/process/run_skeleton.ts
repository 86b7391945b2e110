/**
 * The run of one process, the same on both engines (jco's glue,
 * `jco/run.ts`, and our preview-1 binding, `preview1/run.ts`): its output
 * sinks, open files and resources; a fair start (admitted, instantiated
 * within the start's turn, `guest/guest_control.ts`); its entry run to the
 * end; how it ended (killed, exited, or trapped, in the same words on both);
 * and what is freed after, in order: the pipe to the core, the files, the
 * resources (a listener's port is free when the exit is reported), the
 * memories back to the pool. What differs between engines is an
 * {@link EngineRun}.
 *
 * @module
 */

import { OpenFiles } from "../wasi/filesystem.ts";
import { ProcessResources } from "../wasi/resources.ts";
import type { LineSink } from "../wasi/pipes.ts";
import { outputSinks } from "./output_sinks.ts";
import { GuestKilled } from "../guest/guest_control.ts";
import { trapMessage } from "../guest/trap_message.ts";
import type { Ended, ProcessIo } from "./process_io.ts";

/** What the run skeleton makes for one process, for its engine to build on. */
export interface ProcessParts {
  /** Its stdout, line by line to the core. */
  stdout: LineSink;
  /** Its stderr, line by line to the core. */
  stderr: LineSink;
  /** Its open files (closed when it ends). */
  files: OpenFiles;
  /** Its sockets, streams and pollables (released when it ends). */
  resources: ProcessResources;
}

/** The steps of a process's run that an engine does its own way; `I` is its instance. */
export interface EngineRun<I> {
  /**
   * Makes the process's instance; called inside `GuestControl.instantiate`
   * once the start is admitted (a value, or a promise jco's glue gives).
   */
  instantiate(): I | Promise<I>;
  /**
   * What to run of the made instance, read before the process counts as
   * started; throws when it has no entry (its message becomes the exit's `error`).
   */
  entry(instance: I): () => Promise<unknown>;
  /**
   * The status of an exit the engine knows (`proc_exit`, `wasi:cli/exit`, a
   * `run` that returned `err`); `undefined` when `e` is a trap.
   */
  exitStatus(e: unknown): number | undefined;
  /** Stops host calls still pending from writing into the guest's memory; first after the run. */
  fence?(): void;
  /** Closes what the engine opened for the process beyond {@link ProcessParts} (its descriptors). */
  close?(): void;
  /** Gives its memories back to the pool; last, once the instance can never run again. */
  giveMemories(): void;
}

/**
 * Runs one process to its end: makes its {@link ProcessParts}, builds its
 * engine's run with `engine`, and runs it in the steps every process takes.
 */
export async function runSkeleton<I>(
  io: ProcessIo,
  engine: (parts: ProcessParts) => EngineRun<I>,
): Promise<Ended> {
  const { stdout, stderr } = outputSinks(io);
  const files = new OpenFiles();
  const resources = new ProcessResources();
  const run = engine({ stdout, stderr, files, resources });
  let ended: Ended;
  try {
    const control = io.control;
    // Fair starts: a flood of processes from one asker waits its turn (guest_control.ts).
    await control.admit();
    let instance: I;
    try {
      if (control.killed) throw new GuestKilled();
      const made = control.instantiate(() => run.instantiate());
      instance = made instanceof Promise ? await made : made as I;
    } finally {
      control.admitted();
    }
    const entry = run.entry(instance);
    control.started();
    await entry();
    ended = { status: 0 };
  } catch (e) {
    if (io.control.killed) ended = { status: 1, error: io.control.killReason ?? "killed" };
    else {
      const status = run.exitStatus(e);
      ended = status === undefined ? { status: 1, error: trapMessage(e, io.control) } : { status };
    }
  } finally {
    run.fence?.();
    io.fs.abort();
    run.close?.();
    files.closeAll();
    await resources.releaseAll(); // a listener's port is free when the exit is reported
    run.giveMemories();
  }
  stdout.finish();
  stderr.finish();
  return ended;
}
