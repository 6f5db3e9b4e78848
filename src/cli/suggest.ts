/**
 * Did-you-mean for the CLI: the one nearest known word, offered only when it is close enough to
 * be a slip of the keyboard (a missing, extra, wrong or swapped letter), never a guess.
 */

/** Edit distance with adjacent swaps counted as one edit (optimal string alignment), in code units. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word`, when it is at most one edit away (two for words of 8 or more
 * characters); ties go to the first candidate. `bogus` is not offered `hooks` (two edits in five
 * letters), `serch` is offered `search`.
 *
 * @param word what the user typed (compared case-insensitively)
 * @param candidates the known words
 * @returns the suggestion, or undefined when nothing is close
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  if (typed.length > 64) return undefined;
  const limit = typed.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(typed, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
