/**
 * Finding a program among the places it may be installed (`setpriv`,
 * `setsid`, `bwrap`): the first candidate path that is a file.
 *
 * @module
 */

/** The first of `candidates` that is a file (following links), or undefined. */
export function findExecutable(candidates: readonly string[]): string | undefined {
  return candidates.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}
