/**
 * Ctrl-R: the search through the history that shells have. Typing narrows
 * the search, Ctrl-R again finds the next older match, Backspace widens it.
 *
 * @module
 */

/** The state of one reverse search. */
export class ReverseSearch {
  /** What was typed after Ctrl-R. */
  query = "";
  private index = -1;

  /** @param history the inputs, newest first */
  constructor(private history: readonly string[]) {}

  /** The input that matches now, if any. */
  match(): string | undefined {
    return this.index >= 0 ? this.history[this.index] : undefined;
  }

  /** Where the query is in the match (for the cursor). */
  at(): number {
    return Math.max(0, this.match()?.indexOf(this.query) ?? 0);
  }

  /** Adds typed text to the query and finds the newest match from the current one on. */
  type(text: string): void {
    this.query += text;
    this.find(Math.max(0, this.index));
  }

  /** Removes the last character of the query and searches again from the newest. */
  backspace(): void {
    this.query = this.query.slice(0, -1);
    this.find(0);
  }

  /** Ctrl-R again: the next older match (the current one stays when there is none). */
  older(): void {
    this.find(this.index + 1, true);
  }

  private find(from: number, keep = false): void {
    for (let i = from; i < this.history.length; i++) {
      if (this.history[i].includes(this.query)) {
        this.index = i;
        return;
      }
    }
    if (!keep) this.index = -1;
  }
}
