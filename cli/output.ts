/**
 * Printing for the CLI: results as JSON, errors as one line on stderr.
 *
 * @module
 */

/** JSON for stdout: indented on a terminal, one line for scripts. */
export function formatJson(value: unknown): string {
  return Deno.stdout.isTerminal() ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** Prints `sausage: <message>` on stderr. */
export function printError(message: string): void {
  console.error(`sausage: ${message}`);
}

/** Pads the columns of rows into a plain-text table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) =>
    r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ")
  ).join("\n");
}
