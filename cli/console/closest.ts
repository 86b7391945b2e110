/**
 * The closest name to a mistyped one (edit distance), for "did you mean"
 * hints.
 *
 * @module
 */

/** The edit distance between `a` and `b`: inserts, deletes, changes and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate closest to `name`, when it is close enough to be a typo (at
 * most `max` edits, and fewer than the name's length) or when `name` is a
 * prefix of it.
 */
export function closest(name: string, candidates: Iterable<string>, max = 3): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(name) && name.length > 0 ? 0.5 : editDistance(name, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.min(max, Math.max(1, name.length - 1)) ? best : undefined;
}
