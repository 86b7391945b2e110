/**
 * A small argument parser for the subcommands: positional arguments, boolean
 * flags and flags with a value, with one-line errors for anything unknown.
 *
 * @module
 */

/** A usage error: printed as one line, exit code 2. */
export class UsageError extends Error {
  /** @param message what is wrong and what to do */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The parsed arguments of a subcommand. */
export interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * Parses `args`. `booleans` are flags without a value (`--json`); `values`
 * take the next argument (`-n 20`). Anything else starting with `-` is an error.
 */
export function parseArgs(args: string[], booleans: string[], values: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("-") && a.length > 1 && !/^-\d/.test(a)) {
      const [name, inline] = a.includes("=")
        ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]
        : [a, undefined];
      if (booleans.includes(name)) flags.set(name, true);
      else if (values.includes(name)) {
        const v = inline ?? args[++i];
        if (v === undefined) throw new UsageError(`${name} needs a value`);
        flags.set(name, v);
      } else throw new UsageError(`unknown option ${name}`);
    } else positional.push(a);
  }
  return { positional, flags };
}
