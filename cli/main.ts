/**
 * The `sausage` command: dispatches to the subcommands and turns errors into
 * one line on stderr with a non-zero exit code.
 *
 * @module
 */

import { UsageError } from "./args.ts";
import { cache, CACHE_USAGE } from "./cache.ts";
import { BuildError } from "../core/build/toolchain.ts";
import { call, CALL_USAGE } from "./call.ts";
import { log, LOG_USAGE } from "./log.ts";
import { mcp, MCP_USAGE } from "./mcp.ts";
import { printError } from "./output.ts";
import { ps, PS_USAGE } from "./ps.ts";
import { run, RUN_USAGE } from "./run.ts";
import { cat, CAT_USAGE, ls, LS_USAGE } from "./fs_commands.ts";
import { test, TEST_USAGE } from "./test.ts";

const HELP = `sausage: a host for WebAssembly plugins, a process per JSON-RPC call.

Usage:
  ${RUN_USAGE}
      Run a world until Ctrl-C, SIGTERM or core.exit (exit code 75). On a
      terminal, a console opens after the boot calls (its help lists what it
      takes; quit or Ctrl-D leave); --headless runs without it.
  ${CALL_USAGE}
      Make one call; the result is printed as JSON. Uses the running host of
      the world, or starts one for this call.
  ${PS_USAGE}
      The running processes.
  ${LOG_USAGE}
      The journal, newest last (default: 50 entries).
  ${LS_USAGE}
      A folder as a process sees it, with /proc and /run of the running host.
  ${CAT_USAGE}
      A file as a process sees it (e.g. /proc/core/PROTOCOL.md, /proc/<pid>/log).
  ${MCP_USAGE}
      Serve the world to MCP clients: a tool per plugin method, the world's
      documents as resources. Over stdio, or Streamable HTTP on 127.0.0.1
      for requests with the world's token. Uses the running host of the
      world, or starts one for the session.
  ${TEST_USAGE}
      Run a Rust test binary under WASI, each test in its own instance on an
      empty temporary world (libtest's output, exit code 101 on a failure).
      cargo runs it as its runner:
        CARGO_TARGET_WASM32_WASIP1_RUNNER="/path/to/sausage test" cargo test ...
  ${CACHE_USAGE}
      The compile cache: transpiled components by hash and engine, least
      recently used first, within SAUSAGE_CACHE_MIB (default 2048).
  sausage help
      This text.

Every command takes --cache-dir <folder> (default $XDG_CACHE_HOME/sausage or
~/.cache/sausage; also SAUSAGE_CACHE_DIR).
`;

const COMMANDS: Record<string, (args: string[]) => number | Promise<number>> = {
  run,
  call,
  ps,
  log,
  ls,
  cat,
  mcp,
  test,
  cache,
};

/** Runs the command line; resolves with the exit code. */
export async function main(args: string[]): Promise<number> {
  try {
    args = takeCacheDir(args);
  } catch (e) {
    printError((e as Error).message);
    return 2;
  }
  const [command, ...rest] = args;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    console.log(HELP);
    return command === undefined ? 2 : 0;
  }
  const f = COMMANDS[command];
  if (!f) {
    printError(`unknown command "${command}"; run "sausage help" for the commands`);
    return 2;
  }
  try {
    return await f(rest);
  } catch (e) {
    // A failed build says which plugin in one line; the compiler's own
    // messages (what to fix, and where) follow it.
    const output = e instanceof BuildError ? e.output.trim() : "";
    if (output) console.error(output);
    printError(e instanceof Error ? e.message : String(e));
    return e instanceof UsageError ? 2 : 1;
  }
}

/** Takes `--cache-dir <folder>` (or `=folder`) out of `args`, setting `SAUSAGE_CACHE_DIR`. */
function takeCacheDir(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return [...out, ...args.slice(i)];
    if (a === "--cache-dir" || a.startsWith("--cache-dir=")) {
      const dir = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[++i];
      if (!dir) throw new UsageError("--cache-dir needs a folder");
      Deno.env.set("SAUSAGE_CACHE_DIR", dir.startsWith("/") ? dir : `${Deno.cwd()}/${dir}`);
    } else out.push(a);
  }
  return out;
}
