/**
 * The names of the `sausage` subcommands: the list `help` and the shell
 * completions show. `cli/main.ts` maps each to its module (the type makes it
 * map exactly these), and `cli/completions.ts` reads the list from here, so
 * neither imports the other.
 *
 * @module
 */

/** Every subcommand's name, `help` last. */
export const COMMAND_NAMES = [
  "new",
  "build",
  "dev",
  "import",
  "methods",
  "check",
  "run",
  "call",
  "ps",
  "worker",
  "workers",
  "log",
  "ls",
  "cat",
  "mcp",
  "test",
  "cache",
  "secret",
  "completions",
  "help",
] as const;

/** A subcommand that has a module of its own (all but `help`). */
export type CommandName = Exclude<(typeof COMMAND_NAMES)[number], "help">;

/** The actions of `sausage secret` (`cli/secret.ts`), for its usage and the completions. */
export const SECRET_ACTIONS = ["set", "list", "rm"] as const;
