/**
 * A process's stdout and stderr as line sinks, on both engines: each line
 * goes to the core; a line longer than `line_mib` kills the process; with a
 * window, both count against it (`output_window.ts`).
 *
 * @module
 */

import type { GuestControl } from "../guest/guest_control.ts";
import { LineSink } from "../wasi/pipes.ts";
import type { OutputWindow } from "../guest/output_window.ts";

/** What the sinks need of a process. */
export interface OutputTargets {
  control: GuestControl;
  maxLine: number;
  onStdout(line: string): void;
  onStderr(line: string): void;
  /** Its stdout and stderr lines in flight to the core, if bounded (`output_window_kib`). */
  window?: OutputWindow;
}

/** The stdout and stderr sinks of one process. */
export function outputSinks(io: OutputTargets): { stdout: LineSink; stderr: LineSink } {
  const tooLong = (stream: string) => () =>
    io.control.kill(
      `line limit: a line on ${stream} passed ${io.maxLine / 2 ** 20} MiB ` +
        `("line_mib" in config/limits.json)`,
    );
  return {
    stdout: new LineSink(io.onStdout, io.maxLine, tooLong("stdout"), io.window),
    stderr: new LineSink(io.onStderr, io.maxLine, tooLong("stderr"), io.window),
  };
}
