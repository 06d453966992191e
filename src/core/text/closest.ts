/**
 * Near names: the candidates close to what was typed (`reacll` → recall, `explorr` → explorer),
 * for suggestions wherever a name is looked up.
 */

/** Edit distance with transpositions (optimal string alignment), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= t.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[s.length]![t.length]!;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * The candidates close to `wanted`, best first, at most `max`: those containing it or one of its
 * words (`squash` → "Squash merges only"), then those within a small edit distance (`reacll` →
 * recall). Empty when nothing is close.
 */
export function closest(wanted: string, candidates: readonly string[], max = 3): string[] {
  const query = wanted.trim().toLowerCase();
  if (query === '') return [];
  const queryWords = words(query).filter((w) => w.length >= 3);
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    const lower = name.toLowerCase();
    if (lower === query) continue;
    let score: number | undefined;
    if (lower.includes(query) || query.includes(lower)) score = 0;
    else if (queryWords.some((w) => words(lower).includes(w))) score = 0.5;
    else {
      const distance = editDistance(query, lower);
      if (distance <= Math.max(1, Math.floor(Math.min(query.length, lower.length) / 3))) score = distance;
    }
    if (score !== undefined) scored.push({ name, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : 1))
    .slice(0, max)
    .map((s) => s.name);
}
