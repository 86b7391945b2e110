/**
 * Config files of a world (`config/boot.json`, `config/limits.json`,
 * `config/agent.json`, `config/mcp.json`, anything else the host reads under
 * `config/`) are JSONC: JSON with `//` and `/* *\/` comments and trailing
 * commas, as VS Code's settings are. Every host read of one goes through
 * here, so they all accept the same text and fail the same way: a syntax error
 * names the file, the line and the column, what was expected, and what to do.
 *
 * The parser is Microsoft's `jsonc-parser` (VS Code's); it reports every
 * error with its offset, which becomes `file:line:column`.
 *
 * @module
 */

import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { readWorldText } from "./world_files.ts";

/** A config file that is not valid JSONC: where, and what was found there. */
export class ConfigSyntaxError extends Error {
  /**
   * @param file the file as the world names it (`config/boot.json`)
   * @param line 1-based line of the first error
   * @param column 1-based column of the first error
   * @param problem what was wrong there (`a comma was expected`)
   */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(
      `${file}:${line}:${column}: ${problem}: fix the file ` +
        `(JSON with // or /* */ comments and trailing commas)`,
    );
  }
}

/** What each parse error means, in words. */
const PROBLEMS: Record<string, string> = {
  InvalidSymbol: "an unexpected character",
  InvalidNumberFormat: "a malformed number",
  PropertyNameExpected: "a property name in double quotes was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "a colon was expected",
  CommaExpected: "a comma was expected",
  CloseBraceExpected: "a closing } was expected",
  CloseBracketExpected: "a closing ] was expected",
  EndOfFileExpected: "the file should end here",
  InvalidCommentToken: "a malformed comment",
  UnexpectedEndOfComment: "a /* comment is not closed",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfNumber: "a number ends too early",
  InvalidUnicode: "a malformed \\u escape",
  InvalidEscapeCharacter: "a malformed escape in a string",
  InvalidCharacter: "a control character in a string",
};

/** The 1-based line and column of `offset` in `text` (columns count UTF-16 units). */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * Parses the JSONC text of `file` (named as the world names it, for the
 * error). Throws a {@link ConfigSyntaxError} at the first syntax error; an
 * empty file is one too (a value was expected).
 */
export function parseConfig(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const first = errors[0];
    const { line, column } = position(text, first.offset);
    const problem = PROBLEMS[printParseErrorCode(first.error)] ?? "invalid JSON";
    throw new ConfigSyntaxError(file, line, column, problem);
  }
  if (text.trim() === "") {
    const { line, column } = position(text, text.length);
    throw new ConfigSyntaxError(file, line, column, PROBLEMS.ValueExpected);
  }
  return value;
}

/**
 * Reads and parses the config file `file` of the world at `root` (`file` is
 * relative to it: `config/boot.json`). `undefined` when there is no such
 * file; a {@link ConfigSyntaxError} when it is not valid JSONC; other read
 * errors as they are.
 */
export function readConfigFile(root: string, file: string): unknown {
  // Confined to the world (a link that leads out is refused), a regular file only, opened
  // without waiting (`world_files.ts`).
  const text = readWorldText(root, file);
  return text === undefined ? undefined : parseConfig(text, file);
}
