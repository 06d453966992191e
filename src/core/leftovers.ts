import { type Dirent, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What a process killed mid-write leaves behind. */
export interface Leftover {
  path: string;
  /** `temp`: an atomic write's temp file (never renamed into place); `lock`: a lock directory nobody refreshes. */
  kind: 'temp' | 'lock';
  ageMs: number;
}

/**
 * Younger than this, a temp file or lock may belong to a live process (a write takes
 * milliseconds; a held lock is refreshed every 5 s), so it is left alone.
 */
export const LEFTOVER_MIN_AGE_MS = 30_000;

/**
 * write-file-atomic's temp file: the target's name, a dot and a 32-bit number
 * (`note.md.2836151127`). Only after names firstlight writes, so a user's `v1.2` is not one.
 */
const TEMP = /\.(json|jsonl|md|yaml|yml|txt|toml)\.\d{1,10}$/;
const SKIP = new Set(['node_modules', '.git']);

/**
 * Removes what an interrupted write left in `dirs` (walked `depth` levels down): atomic-write
 * temp files and stale `*.lock` directories older than {@link LEFTOVER_MIN_AGE_MS}. Returns
 * what it removed; a start says so once (stderr, `doctor`, the first packet's degraded_mode).
 */
export function sweepLeftovers(
  dirs: readonly string[],
  options: { now?: number; minAgeMs?: number; depth?: number } = {},
): Leftover[] {
  const now = options.now ?? Date.now();
  const minAge = options.minAgeMs ?? LEFTOVER_MIN_AGE_MS;
  const removed: Leftover[] = [];
  const visit = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIP.has(entry.name)) continue;
      const directory = entry.isDirectory();
      const kind =
        directory && entry.name.endsWith('.lock')
          ? 'lock'
          : !directory && TEMP.test(entry.name) && entry.isFile()
            ? 'temp'
            : undefined;
      // Joined only for what is visited or removed: memory/ holds thousands of plain files.
      if (!kind && !(directory && depth > 0)) continue;
      const path = join(dir, entry.name);
      if (kind) {
        let ageMs: number;
        try {
          ageMs = now - lstatSync(path).mtimeMs;
        } catch {
          continue;
        }
        if (ageMs < minAge) continue;
        try {
          rmSync(path, { recursive: true, force: true });
          removed.push({ path, kind, ageMs });
        } catch {
          // Not ours to remove (permissions): left for doctor to show.
        }
        continue;
      }
      visit(path, depth - 1);
    }
  };
  for (const dir of dirs) visit(dir, options.depth ?? 4);
  return removed;
}

/** One line for a person: what was swept, relative to `base`. */
export function describeLeftovers(removed: readonly Leftover[], base: string): string {
  const names = removed.map(
    (l) => `${relative(base, l.path) || l.path} (${l.kind === 'lock' ? 'stale lock' : 'temp file'})`,
  );
  return `a crash interrupted a write earlier: removed ${removed.length} leftover${removed.length === 1 ? '' : 's'}: ${names.join(', ')}`;
}
