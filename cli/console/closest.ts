/**
 * The closest name to a mistyped one (edit distance), for "did you mean"
 * hints.
 *
 * @module
 */

/** The Levenshtein distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost));
    }
    prev = row;
  }
  return prev[b.length];
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
