import { statSync } from 'node:fs';

/** A file's identity for caching: a write (in place or by rename) changes one of these. */
function fingerprint(path: string): string {
  // throwIfNoEntry: a missing file is a normal state here, and exceptions are slow.
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'missing';
}

/**
 * Memoises a value derived from a set of files, recomputed only when one of them changed (by
 * mtime, size or inode). The hot paths (bootstrap_session at every session start, hooks on every
 * tool call) then cost a few stats instead of reads and parses. `compute` returns the value and
 * the files it depended on (which may differ between calls, e.g. @include targets).
 */
export function memoByFiles<T>(compute: () => { value: T; files: string[] }): () => T {
  let cached: { value: T; files: string[]; prints: string[] } | undefined;
  return () => {
    const last = cached;
    if (last?.files.every((f, i) => fingerprint(f) === last.prints[i])) return last.value;
    const { value, files } = compute();
    // A write landing between compute's read and this stat would be missed until the next
    // change; mtimes are taken right after the read to keep that window microseconds wide.
    const prints = files.map(fingerprint);
    cached = { value, files, prints };
    return value;
  };
}
