/**
 * What a line typed in the console means (section 15): a command, a call
 * `<plugin>.<method> {json}`, or a message to the agent. Parsing needs no
 * host; the console decides what a lone word that is no command means.
 *
 * @module
 */

import { isLevel, type Level, LEVELS } from "../../core/journal/log_event.ts";
import { parseParamsText } from "./json_params.ts";

/** A console command: its name, its arguments and what it does (for `help` and completion). */
export interface CommandInfo {
  name: string;
  args: string;
  does: string;
}

/** The commands, in the order `help` lists them. */
export const COMMANDS: readonly CommandInfo[] = [
  { name: "ls", args: "[path]", does: "a folder as a process sees it (/proc and /run included)" },
  { name: "cat", args: "<path>", does: "a file as a process sees it, e.g. /proc/core/locks.json" },
  { name: "methods", args: "<plugin>", does: "the methods of a plugin: params, types and docs" },
  { name: "ps", args: "", does: "the running processes" },
  {
    name: "log",
    args: "[plugin|pid] [-n N] [-f] [--level L] [--field k=v]",
    does: "the journal, newest last (20 entries); events at a level or with a field",
  },
  {
    name: "log -f",
    args: "[plugin|pid]",
    does: "follow the journal above the prompt (log -f off)",
  },
  { name: "activate", args: "<plugin> <wasm>", does: "core.activate a new version of a plugin" },
  { name: "revert", args: "<plugin>", does: "core.revert: back to plugin.prev.wasm" },
  { name: "stop", args: "<pid>", does: "core.stop: close its stdin, kill after 5 s" },
  { name: "kill", args: "<pid>", does: "core.kill: end a process at once" },
  { name: "clear", args: "", does: "clear the screen (also Ctrl-L)" },
  { name: "help", args: "", does: "this list" },
  { name: "quit", args: "", does: "stop the host and leave (also Ctrl-D)" },
];

/** The command words. */
export const COMMAND_NAMES: readonly string[] = [
  ...new Set(COMMANDS.map((c) => c.name.split(" ")[0])),
];

/** How many journal entries `log` shows without `-n`. */
export const LOG_DEFAULT = 20;

/** A parsed line. */
export type Input =
  | { kind: "empty" }
  | {
    kind: "call";
    method: string;
    params: Record<string, unknown>;
    /** Ends with `&`: runs beside the prompt, its output printed above it. */
    background: boolean;
  }
  | { kind: "chat"; text: string }
  | { kind: "word"; word: string }
  | { kind: "ls"; path: string }
  | { kind: "cat"; path: string }
  | { kind: "methods"; plugin: string }
  | { kind: "ps" }
  | { kind: "clear" }
  | { kind: "log"; who?: string; limit: number; filter: EventFilter }
  | { kind: "follow"; who?: string; filter: EventFilter }
  | { kind: "unfollow" }
  | { kind: "activate"; plugin: string; wasm: string }
  | { kind: "revert"; plugin: string }
  | { kind: "stop" | "kill"; pid: string }
  | { kind: "help" }
  | { kind: "quit" }
  /** A mistake; `column` (1-based, in the line) when it points at one place. */
  | { kind: "error"; message: string; column?: number };

const CALL = /^([a-z0-9_-]+)\.([A-Za-z_][\w.-]*)(?=[\s&{]|$)/;
const WORD = /^[A-Za-z][\w-]*$/;

/** Parses one line typed at the prompt. */
export function parseInput(line: string): Input {
  const text = line.trim();
  if (text === "") return { kind: "empty" };
  const lead = line.length - line.trimStart().length;
  const call = CALL.exec(text);
  if (call) return parseCall(text, call[0], lead);
  const bare = /^([a-z0-9_-]+)\.(?=\s|$)/.exec(text);
  if (bare) {
    return {
      kind: "error",
      message: `a method name goes after "${bare[0]}" (${bare[0]}<Tab> lists them)`,
    };
  }
  const [word, ...args] = text.split(/\s+/);
  if (COMMAND_NAMES.includes(word)) return parseCommand(word, args);
  if (args.length === 0 && WORD.test(word)) return { kind: "word", word };
  return { kind: "chat", text };
}

function parseCall(text: string, method: string, lead: number): Input {
  let rest = text.slice(method.length);
  let background = false;
  const amp = /\s*&$/.exec(rest);
  if (amp) {
    background = true;
    rest = rest.slice(0, amp.index);
  }
  const paramsAt = lead + method.length; // `rest` keeps its leading spaces
  const parsed = parseParamsText(rest);
  if (!parsed.ok) {
    return {
      kind: "error",
      message: `bad JSON at column ${paramsAt + parsed.column}: ${parsed.message}`,
      column: paramsAt + parsed.column,
    };
  }
  return { kind: "call", method, params: parsed.params, background };
}

function usage(name: string): Input {
  const c = COMMANDS.find((c) => c.name === name)!;
  return { kind: "error", message: `usage: ${c.name}${c.args ? ` ${c.args}` : ""}` };
}

function parseCommand(word: string, args: string[]): Input {
  switch (word) {
    case "ls":
      return args.length <= 1 ? { kind: "ls", path: args[0] ?? "/" } : usage("ls");
    case "cat":
      return args.length === 1 ? { kind: "cat", path: args[0] } : usage("cat");
    case "methods":
      return args.length === 1 ? { kind: "methods", plugin: args[0] } : usage("methods");
    case "revert":
      return args.length === 1 ? { kind: "revert", plugin: args[0] } : usage("revert");
    case "activate":
      return args.length === 2
        ? { kind: "activate", plugin: args[0], wasm: args[1] }
        : usage("activate");
    case "stop":
    case "kill":
      return args.length === 1 ? { kind: word, pid: args[0] } : usage(word);
    case "log":
      return parseLog(args);
    case "ps":
    case "clear":
    case "help":
    case "quit":
      return args.length === 0 ? { kind: word } : usage(word);
  }
  return { kind: "error", message: `unknown command "${word}"` };
}

/** The structured-event filters of `log` (`--level`, `--field`): part of `core.log`'s. */
export interface EventFilter {
  level?: Level;
  fields?: Record<string, unknown>;
}

function parseLog(args: string[]): Input {
  let who: string | undefined;
  let limit = LOG_DEFAULT;
  let follow = false;
  const filter: EventFilter = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-f") follow = true;
    else if (a === "--level") {
      const level = args[++i];
      if (!isLevel(level)) {
        return { kind: "error", message: `--level needs one of ${LEVELS.join(", ")}` };
      }
      filter.level = level;
    } else if (a === "--field") {
      const pair = args[++i] ?? "";
      const eq = pair.indexOf("=");
      if (eq < 1) return { kind: "error", message: `--field needs key=value, like --field user=7` };
      let value: unknown = pair.slice(eq + 1);
      try {
        value = JSON.parse(value as string);
      } catch { /* a plain string */ }
      filter.fields = { ...filter.fields, [pair.slice(0, eq)]: value };
    } else if (a === "-n") {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) {
        return { kind: "error", message: `-n needs a positive whole number, like log -n 50` };
      }
      limit = n;
    } else if (a.startsWith("-")) return usage("log");
    else if (who === undefined) who = a;
    else return usage("log");
  }
  if (follow) return who === "off" ? { kind: "unfollow" } : { kind: "follow", who, filter };
  return { kind: "log", who, limit, filter };
}
