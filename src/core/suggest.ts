// "Did you mean": the known word closest to a mistyped one (a verb, an option, a harness id), when one is close enough
// to be what the user meant. One measure for every list, so `lsit`, `--jsno` and `cluade` are answered alike.

/**
 * Edits between two words: insertions, deletions, substitutions, and a swap of two neighbours counted as one (the
 * commonest typo: `lsit`). The optimal string alignment distance.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const cost = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number): number => cost[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row < rows; row++)
    for (let column = 1; column < columns; column++) {
      const same = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + same);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1])
        best = Math.min(best, at(row - 2, column - 2) + 1);
      (cost[row] as number[])[column] = best;
    }
  return at(a.length, b.length);
}

/**
 * The candidate nearest to `word`, or undefined when none is near: at most one edit for words of up to four
 * characters, two for longer ones, and never a tie between two candidates (then it would be a guess).
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const limit = typed.replace(/^-+/, "").length <= 4 ? 1 : 2;
  let best: { word: string; distance: number } | undefined;
  let tie = false;
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance > limit) continue;
    if (best === undefined || distance < best.distance) {
      best = { word: candidate, distance };
      tie = false;
    } else if (distance === best.distance) tie = true;
  }
  return best && !tie ? best.word : undefined;
}

/** `; did you mean <word>?`, or nothing when no candidate is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = closest(word, candidates);
  return match === undefined ? "" : `; did you mean ${match}?`;
}
