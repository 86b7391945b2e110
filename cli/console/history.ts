/**
 * The console's history, kept in the world at `state/console/history`: one
 * input per line, oldest first, at most `HISTORY_LIMIT` lines. Written
 * through a temporary file and a rename, so a crash never leaves half a file.
 *
 * @module
 */

/** How many inputs the history keeps. */
export const HISTORY_LIMIT = 1000;

/** The history of one world's console. */
export class History {
  private lines: string[];

  /** Reads `path` (missing: an empty history). */
  constructor(readonly path: string, private limit = HISTORY_LIMIT) {
    let text = "";
    try {
      text = Deno.readTextFileSync(path);
    } catch { /* no history yet */ }
    this.lines = text.split("\n").filter((l) => l.trim() !== "").slice(-limit);
  }

  /** The inputs, oldest first. */
  entries(): readonly string[] {
    return this.lines;
  }

  /**
   * Adds an input (not a repeat of the last one) and writes the file; a
   * failed write is returned as a message, and the history goes on in memory.
   */
  add(line: string): string | null {
    if (line.trim() === "" || line.includes("\n") || this.lines.at(-1) === line) return null;
    this.lines.push(line);
    if (this.lines.length > this.limit) this.lines.splice(0, this.lines.length - this.limit);
    try {
      Deno.mkdirSync(this.path.slice(0, this.path.lastIndexOf("/")), { recursive: true });
      const tmp = `${this.path}.tmp`;
      Deno.writeTextFileSync(tmp, this.lines.join("\n") + "\n");
      Deno.renameSync(tmp, this.path);
      return null;
    } catch (e) {
      return `the history was not saved to ${this.path}: ${e instanceof Error ? e.message : e}`;
    }
  }
}
