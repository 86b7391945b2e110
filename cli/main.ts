/**
 * The `sausage` command: dispatches to the subcommands and turns errors into
 * one line on stderr with a non-zero exit code.
 *
 * @module
 */

import { closest } from "./console/closest.ts";
import { UsageError } from "./args.ts";
import { printError } from "./output.ts";
import type { CommandName } from "./command_names.ts";
import { loadLater } from "../core/load_later.ts";

/** A command's module (`./x.ts`, in this folder), loaded when asked (`load_later.ts`). */
function later<T>(file: string): Promise<T> {
  return loadLater<T>(new URL(file, import.meta.url));
}

/** A subcommand: resolves with the exit code. */
type Command = (args: string[]) => number | Promise<number>;

/**
 * Each subcommand's module, loaded only when it runs, so that `sausage call`
 * against a running host does not load the host, jco or the MCP SDK (nor
 * does Deno prepare them before the command starts: `core/load_later.ts`).
 */
const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  new: async () => (await later<typeof import("./new.ts")>("./new.ts")).newCommand,
  build: async () => (await later<typeof import("./build.ts")>("./build.ts")).build,
  dev: async () => (await later<typeof import("./dev.ts")>("./dev.ts")).dev,
  import: async () => (await later<typeof import("./import.ts")>("./import.ts")).importCommand,
  methods: async () => (await later<typeof import("./methods.ts")>("./methods.ts")).methods,
  check: async () => (await later<typeof import("./check.ts")>("./check.ts")).check,
  run: async () => (await later<typeof import("./run.ts")>("./run.ts")).run,
  call: async () => (await later<typeof import("./call.ts")>("./call.ts")).call,
  ps: async () => (await later<typeof import("./ps.ts")>("./ps.ts")).ps,
  worker: async () => (await later<typeof import("./worker.ts")>("./worker.ts")).worker,
  workers: async () => (await later<typeof import("./workers.ts")>("./workers.ts")).workers,
  log: async () => (await later<typeof import("./log.ts")>("./log.ts")).log,
  ls: async () => (await later<typeof import("./fs_commands.ts")>("./fs_commands.ts")).ls,
  cat: async () => (await later<typeof import("./fs_commands.ts")>("./fs_commands.ts")).cat,
  mcp: async () => (await later<typeof import("./mcp.ts")>("./mcp.ts")).mcp,
  test: async () => (await later<typeof import("./test_command.ts")>("./test_command.ts")).test,
  cache: async () => (await later<typeof import("./cache.ts")>("./cache.ts")).cache,
  secret: async () => (await later<typeof import("./secret.ts")>("./secret.ts")).secret,
  completions: async () =>
    (await later<typeof import("./completions.ts")>("./completions.ts")).completions,
};

/** The help text (it loads every command's module for its usage line). */
async function help(): Promise<string> {
  const { RUN_USAGE } = await later<typeof import("./run.ts")>("./run.ts");
  const { CALL_USAGE } = await later<typeof import("./call.ts")>("./call.ts");
  const { PS_USAGE } = await later<typeof import("./ps.ts")>("./ps.ts");
  const { WORKER_USAGE } = await later<typeof import("./worker.ts")>("./worker.ts");
  const { WORKERS_USAGE } = await later<typeof import("./workers.ts")>("./workers.ts");
  const { LOG_USAGE } = await later<typeof import("./log.ts")>("./log.ts");
  const { LS_USAGE, CAT_USAGE } = await later<typeof import("./fs_commands.ts")>(
    "./fs_commands.ts",
  );
  const { MCP_USAGE } = await later<typeof import("./mcp.ts")>("./mcp.ts");
  const { TEST_USAGE } = await later<typeof import("./test_command.ts")>("./test_command.ts");
  const { CACHE_USAGE } = await later<typeof import("./cache.ts")>("./cache.ts");
  const { SECRET_USAGE } = await later<typeof import("./secret.ts")>("./secret.ts");
  const { NEW_USAGE } = await later<typeof import("./new.ts")>("./new.ts");
  const { BUILD_USAGE } = await later<typeof import("./build.ts")>("./build.ts");
  const { DEV_USAGE } = await later<typeof import("./dev.ts")>("./dev.ts");
  const { IMPORT_USAGE } = await later<typeof import("./import.ts")>("./import.ts");
  const { METHODS_USAGE } = await later<typeof import("./methods.ts")>("./methods.ts");
  const { CHECK_USAGE } = await later<typeof import("./check.ts")>("./check.ts");
  const { COMPLETIONS_USAGE } = await later<typeof import("./completions.ts")>("./completions.ts");
  return `sausage: a host for WebAssembly plugins, a process per JSON-RPC call.

Usage:
  ${NEW_USAGE}
      Make a world with a first plugin (hello), or add a plugin to a world:
      a cargo project in plugins/<plugin>/source/ where cargo test, check
      and doc work with no flags (the world's .cargo/config.toml).
      --example: a copy of the example world (hello, notes, www, an agent...).
  ${BUILD_USAGE}
      Test and build each plugin (cargo.build), then activate them together
      (core.activate with its checks against the other plugins), with
      cargo's lines as they come. Name a provider and its consumers together
      to make a change that breaks them. Uses the running
      host of the world, or starts one for the build.
  ${DEV_USAGE}
      Run the world and, when a plugin's source changes, test, build and
      activate it; a change that fails leaves the last good version running.
  ${IMPORT_USAGE}
      Copy the provider's current rpc.discover document into the consumer's
      source/imports/, for sausage_plugin::import!("<provider>"); --built:
      that of its newest build, activated or not (a change made together).
  ${METHODS_USAGE}
      A plugin's methods: params, results and docs (--json: its document).
  ${CHECK_USAGE}
      Whether a .wasm file can be a plugin here, before installing it: its
      imports and whether this host binds each, the engine that runs it, its
      memory, and its rpc.discover document (valid, none, or failing), run
      in a throwaway world. Exit code 1 when activation would refuse it.
  ${COMPLETIONS_USAGE}
      A completion script: source <(sausage completions bash) in ~/.bashrc.
  ${RUN_USAGE}
      Run a world until Ctrl-C, SIGTERM or core.exit (exit code 75). On a
      terminal, a console opens after the boot calls (its help lists what it
      takes; quit or Ctrl-D leave); --headless runs without it.
  ${CALL_USAGE}
      Make one call; the result is printed as JSON. Uses the running host of
      the world, or starts one for this call. --timeout-ms sets its time
      limit (default 60 s, "call_timeout_ms" in config/limits.json).
  ${PS_USAGE}
      The running processes (and the worker of each remote one).
  ${WORKER_USAGE}
      Offer this machine's sandboxes to a world's host over NATS (README,
      "More than one machine"); the password from SAUSAGE_NATS_PASSWORD.
  ${WORKERS_USAGE}
      The workers of the running host, with their load; add makes a worker's
      own credentials (an nkey seed file and the nats-server config line).
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
  ${SECRET_USAGE}
      The world's secrets (API keys), kept outside the world in a file only
      you can read ($XDG_CONFIG_HOME/sausage/secrets/; SAUSAGE_SECRETS_DIR).
      set: the value comes from stdin, never the command line, so it stays
      out of shell history and ps (a terminal asks for it, unechoed; a pipe
      gives all of it less a final newline). list: names, set or not, and the
      plugins config/secrets.json lets read each; never a value. rm: remove
      one. No host needed; a running one reads the file at each core.secret.
  sausage help
      This text.
  sausage --version
      The versions of Sausage, of the Deno that runs it and of jco.

Every command takes --cache-dir <folder> (default $XDG_CACHE_HOME/sausage or
~/.cache/sausage; also SAUSAGE_CACHE_DIR).
`;
}

/** The usage and description of one command, out of the help text. */
async function commandHelp(command: string): Promise<string> {
  const lines = (await help()).split("\n");
  const start = lines.findIndex((l) =>
    l.startsWith(`  sausage ${command} `) || l === `  sausage ${command}`
  );
  if (start < 0) return `sausage ${command}: run "sausage help" for the commands`;
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith("      ")) end++;
  return `Usage: ${lines[start].trim()}\n\n${
    lines.slice(start + 1, end).map((l) => l.slice(2)).join("\n")
  }`;
}

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
    console.log(await help());
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-V" || command === "version") {
    console.log((await later<typeof import("./version.ts")>("./version.ts")).versionText());
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command as CommandName] : undefined;
  if (!load) {
    const near = closest(command, Object.keys(COMMANDS), 2);
    printError(
      `unknown command "${command}"; ${
        near ? `did you mean ${near}? (` : ""
      }run "sausage help" for the commands${near ? ")" : ""}`,
    );
    return 2;
  }
  const asksHelp = command === "test"
    ? rest[0] === "--help" || rest[0] === "-h"
    : rest.includes("--help") || rest.includes("-h");
  if (asksHelp) {
    console.log(await commandHelp(command));
    return 0;
  }
  try {
    return await (await load())(rest);
  } catch (e) {
    // A failed build says which plugin in one line; the compiler's own
    // messages (what to fix, and where) follow it.
    const output = e instanceof Error && e.name === "BuildError"
      ? String((e as Error & { output?: unknown }).output ?? "").trim()
      : "";
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
