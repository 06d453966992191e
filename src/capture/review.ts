/**
 * `capture.mode: review`: captured memories wait as `status: proposed` (recalled below accepted
 * ones, never a caution) until the user accepts them (the status is dropped), edits them, or
 * rejects them (forgotten: memory/.trash/, restorable).
 */
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import {
  homePaths,
  parseFrontmatter,
  readTextIfExists,
  renderFrontmatter,
  UserError,
  withFileLock,
  writeFileAtomically,
} from '../core/index.js';
import { forgetMemory, isProblem, listMemoryFiles, readMemoryEntry } from '../mind/index.js';

/**
 * Moves MEMORY.md's mtime after an edit in place: the `applies_to` table and the entry cache are
 * keyed on it, and an accepted caution must fire at the next call, not after the next remember.
 */
export function touchIndex(home: string): void {
  const index = homePaths(home).memoryIndex;
  if (!existsSync(index)) return;
  const now = new Date();
  utimesSync(index, now, now);
}

export interface Proposed {
  name: string;
  type: string;
  file: string;
  description: string;
  applies_to: string[];
  evidence: string[];
  session: string | null;
}

/** Every proposed memory, in file order. */
export function listProposed(home: string): Proposed[] {
  const dir = homePaths(home).memory;
  const out: Proposed[] = [];
  for (const file of listMemoryFiles(dir)) {
    const entry = readMemoryEntry(dir, file);
    if (isProblem(entry) || entry.fields.status !== 'proposed') continue;
    const data = parseFrontmatter(readTextIfExists(join(dir, file)) ?? '').data;
    out.push({
      name: entry.name,
      type: entry.type,
      file,
      description: entry.description,
      applies_to: entry.appliesTo,
      evidence: Array.isArray(data.evidence) ? data.evidence.map(String) : [],
      session: typeof data.session === 'string' ? data.session : null,
    });
  }
  return out;
}

/** The proposed memories `which` names: one by name or file, or every one (`all`). */
export function pick(home: string, which: string | { all: true }): Proposed[] {
  const proposed = listProposed(home);
  if (typeof which !== 'string') return proposed;
  const wanted = which.toLowerCase();
  const found = proposed.filter((p) => p.name.toLowerCase() === wanted || p.file.toLowerCase() === wanted);
  if (found.length === 0) {
    throw new UserError(`no proposed memory named "${which}"`, {
      code: 'NOT_FOUND',
      hint: 'firstlight memory review lists the proposed memories by name; pass one, or --all',
    });
  }
  return found;
}

/** Accepts: the `status: proposed` line goes, so the memory counts as any other (and cautions). */
export async function acceptProposed(home: string, which: string | { all: true }): Promise<Proposed[]> {
  const chosen = pick(home, which);
  const paths = homePaths(home);
  await withFileLock(paths.memory, async () => {
    for (const p of chosen) {
      const path = join(paths.memory, p.file);
      const text = readTextIfExists(path);
      if (text === undefined) continue;
      const { data, body } = parseFrontmatter(text);
      const { status: _dropped, ...rest } = data;
      await writeFileAtomically(path, renderFrontmatter(rest, body));
    }
    touchIndex(home);
  });
  return chosen;
}

/** Rejects: each chosen memory is forgotten (restorable with `firstlight memory restore`). */
export async function rejectProposed(home: string, which: string | { all: true }): Promise<Proposed[]> {
  const chosen = pick(home, which);
  for (const p of chosen) await forgetMemory(home, p.file);
  return chosen;
}
