/**
 * What rustc reports about a crate, as cargo's `--message-format json`
 * carries it: the diagnostics that `cargo.build` turns into warnings and
 * failures (with their source lines) and that the agent reads.
 *
 * @module
 */

/** A span of a rustc diagnostic: where it points, with the source lines. */
export interface DiagnosticSpan {
  file_name: string;
  line_start: number;
  is_primary: boolean;
  /** The source lines, with the columns (1-based) of the highlighted part. */
  text: { text: string; highlight_start: number; highlight_end: number }[];
  label: string | null;
}

/** A rustc diagnostic as cargo's `--message-format json` reports it. */
export interface Diagnostic {
  level: string;
  message: string;
  /** The lint, e.g. `{code: "dead_code"}`. */
  code: { code: string } | null;
  spans: DiagnosticSpan[];
  rendered: string | null;
}
