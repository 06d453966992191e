/**
 * A small unified diff for `--dry-run`: common leading and trailing lines trimmed, the changed
 * middle shown as one hunk with three lines of context. Install edits are local, so one hunk
 * is what they produce; it stays linear on large files such as ~/.claude.json.
 */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined): string {
  const a = before === undefined || before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === undefined || after === '' ? [] : after.replace(/\n$/, '').split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  if (start === endA && start === endB) return '';
  const from = Math.max(0, start - 3);
  const toA = Math.min(a.length, endA + 3);
  const toB = Math.min(b.length, endB + 3);
  const lines = [
    `--- ${before === undefined ? '/dev/null' : `a/${path}`}`,
    `+++ ${after === undefined ? '/dev/null' : `b/${path}`}`,
    `@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`,
    ...a.slice(from, start).map((l) => ` ${l}`),
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
    ...a.slice(endA, toA).map((l) => ` ${l}`),
  ];
  return lines.join('\n');
}
