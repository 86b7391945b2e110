/**
 * The console's history, kept in the world at `state/console/history`: one
 * input per line, oldest first, at most `HISTORY_LIMIT` lines. Written
 * through a temporary file and a rename, so a crash never leaves half a file,
 * and confined to the world (`core/world/world_files.ts`): a guest may change
 * `state/console/`, and a link it leaves there is replaced, never followed.
 *
 * @module
 */

import { readWorldText, writeWorldFile } from "../../core/world/world_files.ts";

/** How many inputs the history keeps. */
export const HISTORY_LIMIT = 1000;

/** Where the history is kept, relative to the world. */
export const HISTORY_FILE = "state/console/history";

/** The history of one world's console. */
export class History {
  private lines: string[];

  /**
   * Reads the history of the world at `root` (its real path; missing or
   * unreadable: an empty history).
   */
  constructor(readonly root: string, private limit = HISTORY_LIMIT) {
    let text = "";
    try {
      text = readWorldText(root, HISTORY_FILE) ?? "";
    } catch { /* no history, or one that leads outside the world */ }
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
      writeWorldFile(this.root, HISTORY_FILE, this.lines.join("\n") + "\n");
      return null;
    } catch (e) {
      return `the history was not saved to ${HISTORY_FILE}: ${e instanceof Error ? e.message : e}`;
    }
  }
}
