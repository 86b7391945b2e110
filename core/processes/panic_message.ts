/**
 * The panic of a Rust guest, out of its last journal lines (its stderr):
 * `thread 'main' panicked at src/main.rs:10:5:` followed by the message, up
 * to the `note: run with RUST_BACKTRACE=1` line, which a plugin's author
 * cannot act on (there is no backtrace under WASI) and is dropped.
 *
 * @module
 */

/** A panic: where, and its message. */
export interface Panic {
  /** `src/main.rs:10:5`. */
  at: string;
  /** The panic's message (its lines joined with newlines). */
  message: string;
}

const HEAD = /^thread '[^']*' (?:\(\d+\) )?panicked at ([^\n]+?):?$/;

/** The last panic in `lines`, or null when there is none. */
export function findPanic(lines: string[]): Panic | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = lines[i].match(HEAD);
    if (!m) continue;
    const message: string[] = [];
    for (const line of lines.slice(i + 1)) {
      if (/^note: run with `RUST_BACKTRACE=1`/.test(line) || HEAD.test(line)) break;
      message.push(line);
    }
    return { at: m[1], message: message.join("\n").trim() || "(no message)" };
  }
  return null;
}
