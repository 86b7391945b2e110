/**
 * Colours of the console, by the usual conventions: none when `NO_COLOR` is
 * set (to anything but the empty string) or when the output is not a
 * terminal.
 *
 * @module
 */

/** The styles the console uses; each returns its text unchanged when colour is off. */
export interface Style {
  /** True when colour is on. */
  readonly color: boolean;
  /** Errors. */
  red(text: string): string;
  /** Notifications, journal lines and hints. */
  dim(text: string): string;
  /** The prompt. */
  bold(text: string): string;
}

/** Whether to use colour: the output is a terminal and `NO_COLOR` is not set. */
export function colorWanted(isTerminal: boolean, env: (name: string) => string | undefined) {
  return isTerminal && !env("NO_COLOR");
}

/** The styles, with colour on or off. */
export function makeStyle(color: boolean): Style {
  const sgr = (on: string, off: string) => (text: string) =>
    color && text ? `\x1b[${on}m${text}\x1b[${off}m` : text;
  return { color, red: sgr("31", "39"), dim: sgr("2", "22"), bold: sgr("1", "22") };
}

/** Removes the colour codes of `makeStyle` (for widths and tests). */
export function stripStyle(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
