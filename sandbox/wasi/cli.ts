/**
 * `wasi:cli`: environment, arguments, exit, stdio and terminals of one process.
 *
 * @module
 */

import { InputStream, OutputStream } from "./streams.ts";

/** Thrown by `exit` to unwind the guest; the sandbox reads the status from it. */
export class GuestExit extends Error {
  /** @param status the exit status: 0 for ok, 1 for err, or the code of `exit-with-code` */
  constructor(readonly status: number) {
    super(`the guest exited with status ${status}`);
  }
}

/**
 * The exit code a guest gave to preview 1's `proc_exit`. The preview-1
 * adapter turns `proc_exit(n)` into `wasi:cli/exit.exit(err)` for any
 * `n != 0`, so the code would be lost on the way to the host; the core module
 * that imports `wasi_snapshot_preview1.proc_exit` from the adapter gets a
 * wrapper that notes `n` first, and `GuestExit` from the adapter's `exit` is
 * read with the code noted here.
 */
export class ExitCode {
  /** The code passed to `proc_exit`, once it was called. */
  code: number | undefined;

  /**
   * The imports of one core module, with its `wasi_snapshot_preview1.proc_exit`
   * (if it imports one) wrapped to note the code; the same object otherwise.
   */
  wrapImports(
    imports: Record<string, Record<string, unknown>>,
  ): Record<string, Record<string, unknown>> {
    const p1 = imports.wasi_snapshot_preview1;
    const procExit = p1?.proc_exit;
    if (typeof procExit !== "function") return imports;
    const wrapped = (code: number) => {
      this.code = code >>> 0;
      return procExit(code);
    };
    return { ...imports, wasi_snapshot_preview1: { ...p1, proc_exit: wrapped } };
  }

  /** The status of a `GuestExit`: the noted code when the adapter reduced it to 1. */
  statusOf(exit: GuestExit): number {
    return exit.status === 1 && this.code !== undefined && this.code !== 0
      ? this.code
      : exit.status;
  }
}

/** What the cli interfaces of one process are made from. */
export interface CliContext {
  env: [string, string][];
  args: string[];
  cwd: string;
  stdin: InputStream;
  stdout: OutputStream;
  stderr: OutputStream;
}

/** A terminal handle; processes have none (stdio are pipes). */
export class TerminalInput {}
/** A terminal handle; processes have none (stdio are pipes). */
export class TerminalOutput {}

/** Builds the `wasi:cli/*` import interfaces for one process. */
export function cliInterfaces(ctx: CliContext): Record<string, unknown> {
  const none = () => undefined;
  return {
    "wasi:cli/environment": {
      getEnvironment: () => ctx.env,
      getArguments: () => ctx.args,
      initialCwd: () => ctx.cwd,
    },
    "wasi:cli/exit": {
      exit(status: { tag: "ok" | "err" }): never {
        throw new GuestExit(status.tag === "ok" ? 0 : 1);
      },
      exitWithCode(code: number): never {
        throw new GuestExit(code);
      },
    },
    "wasi:cli/stdin": { getStdin: () => ctx.stdin },
    "wasi:cli/stdout": { getStdout: () => ctx.stdout },
    "wasi:cli/stderr": { getStderr: () => ctx.stderr },
    "wasi:cli/terminal-input": { TerminalInput },
    "wasi:cli/terminal-output": { TerminalOutput },
    "wasi:cli/terminal-stdin": { getTerminalStdin: none },
    "wasi:cli/terminal-stdout": { getTerminalStdout: none },
    "wasi:cli/terminal-stderr": { getTerminalStderr: none },
  };
}
