/**
 * `wasi:cli`: environment, arguments, exit, stdio and terminals of one process.
 *
 * @module
 */

import { InputStream, OutputStream } from "./streams.ts";

/** Thrown by `exit` to unwind the guest; the sandbox reads the status from it. */
export class GuestExit extends Error {
  /** @param status the exit status: 0 for ok, 1 for err */
  constructor(readonly status: number) {
    super(`the guest exited with status ${status}`);
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
