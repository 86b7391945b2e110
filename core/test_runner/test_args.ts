/**
 * The command line of a test binary, as cargo passes it to its runner
 * (`sausage test <binary.wasm> [libtest args]`): the libtest options that
 * the runner supports, and the filters, applied as libtest applies them.
 *
 * @module
 */

/** An option the runner does not know or support: one line, for the command line. */
export class TestArgsError extends Error {
  /** @param message what is wrong */
  constructor(message: string) {
    super(message);
    this.name = "TestArgsError";
  }
}

/** What the runner does with a test binary. */
export interface TestArgs {
  /** Name filters: a test runs when its name contains one (equals one with `exact`). */
  filters: string[];
  /** `--skip`: names to leave out (contained, or equal with `exact`). */
  skip: string[];
  /** `--exact`: filters and skips match whole names. */
  exact: boolean;
  /** `--list`: print the tests, run none. */
  list: boolean;
  /** `--ignored`: run only the ignored tests; `--include-ignored`: run them too. */
  ignored: "skip" | "only" | "include";
  /** `--format terse` or `-q`: one character per test. */
  format: "pretty" | "terse";
  /** `--nocapture`: print each test's output as it comes; `--show-output`: print it for passing tests too. */
  nocapture: boolean;
  showOutput: boolean;
  /** `--test-threads N`: how many tests run at once (default: the number of cores). */
  threads?: number;
}

/** libtest options that change nothing here (colors, timing reports). */
const IGNORED_WITH_VALUE = ["--color", "--logfile"];
const IGNORED_FLAGS = ["--report-time", "--ensure-time"];

/**
 * Parses libtest's arguments. Throws a {@link TestArgsError} for an option the
 * runner does not support (benchmarks, JSON output, shuffling).
 */
export function parseTestArgs(args: string[]): TestArgs {
  const out: TestArgs = {
    filters: [],
    skip: [],
    exact: false,
    list: false,
    ignored: "skip",
    format: "pretty",
    nocapture: false,
    showOutput: false,
  };
  const value = (i: number, name: string): string => {
    const v = args[i];
    if (v === undefined) throw new TestArgsError(`${name} needs a value`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let inline: string | undefined;
    if (a.startsWith("--") && a.includes("=")) {
      inline = a.slice(a.indexOf("=") + 1);
      a = a.slice(0, a.indexOf("="));
    }
    const take = (name: string) => inline ?? value(++i, name);
    switch (a) {
      case "--exact":
        out.exact = true;
        break;
      case "--list":
        out.list = true;
        break;
      case "--ignored":
        out.ignored = "only";
        break;
      case "--include-ignored":
        out.ignored = "include";
        break;
      case "--nocapture":
      case "--no-capture":
        out.nocapture = true;
        break;
      case "--show-output":
        out.showOutput = true;
        break;
      case "-q":
      case "--quiet":
        out.format = "terse";
        break;
      case "--format": {
        const f = take(a);
        if (f !== "pretty" && f !== "terse") {
          throw new TestArgsError(`sausage test supports --format pretty and terse, not ${f}`);
        }
        out.format = f;
        break;
      }
      case "--test-threads": {
        const n = Number(take(a));
        if (!Number.isInteger(n) || n < 1) {
          throw new TestArgsError("--test-threads must be a positive integer");
        }
        out.threads = n;
        break;
      }
      case "--skip":
        out.skip.push(take(a));
        break;
      case "--test":
        break; // the default mode
      default:
        if (IGNORED_WITH_VALUE.includes(a)) {
          take(a);
        } else if (IGNORED_FLAGS.includes(a)) {
          // nothing to do
        } else if (a.startsWith("-")) {
          throw new TestArgsError(
            `sausage test does not support ${a} (it runs each test in its own instance; see sausage help)`,
          );
        } else {
          out.filters.push(a);
        }
    }
  }
  return out;
}

/** True when `name` passes the filters and skips of `args`, as libtest decides. */
export function selected(name: string, args: TestArgs): boolean {
  const match = (pattern: string) => args.exact ? name === pattern : name.includes(pattern);
  if (args.filters.length && !args.filters.some(match)) return false;
  return !args.skip.some(match);
}
