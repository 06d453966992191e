/**
 * Candidates into memory, through the mind's `remember` (its redactor, its project scope, its
 * near-duplicate check): a candidate much like an existing memory updates that memory when
 * capture wrote it, and is skipped when a person did; one somewhat like a memory of the same
 * type and target supersedes it (`superseded_by`: recall keeps the old one at half weight).
 */
import { join } from 'node:path';
import {
  homePaths,
  parseFrontmatter,
  readTextIfExists,
  renderFrontmatter,
  withFileLock,
  writeFileAtomically,
} from '../core/index.js';
import { type Mind, type RecallIndex, rememberIn, SIMILAR_FLOOR } from '../mind/index.js';
import type { Candidate } from './extract/candidate.js';
import { touchIndex } from './review.js';

/** At or above this similarity a candidate is the same fact as the memory. */
export const SAME_FACT = 0.8;

export interface Written {
  name: string;
  type: string;
  file: string;
  /** added, updated (a captured memory of the same fact), or added and superseding another. */
  action: 'added' | 'updated' | 'superseded';
  supersedes?: string;
  status: 'accepted' | 'proposed';
  evidence: string[];
}

export interface Skip {
  what: string;
  why: string;
}

export interface WriteDeps {
  mind: Mind;
  recall: () => RecallIndex;
  session: string;
  review: boolean;
}

/** Writes one candidate, or says why not. */
export async function writeCandidate(candidate: Candidate, deps: WriteDeps): Promise<Written | Skip> {
  const { mind } = deps;
  const text = `${candidate.name}\n${candidate.description}\n${candidate.content}`;
  const similar = deps.recall().similar(text, { scope: mind.memoryScope(), floor: SIMILAR_FLOOR });
  const memoryDir = homePaths(mind.home).memory;
  let replaceName: string | undefined;
  let supersede: { name: string; file: string } | undefined;
  let evidence = candidate.evidence;
  for (const hit of similar) {
    const front = frontOf(join(memoryDir, hit.file));
    if (!front || front.type !== candidate.type || front.superseded_by !== undefined) continue;
    if (hit.score >= SAME_FACT) {
      if (front.source !== 'capture')
        return { what: candidate.name, why: `already known: memory "${hit.name}" (similarity ${hit.score})` };
      replaceName = hit.name;
      evidence = [...new Set([...toList(front.evidence), ...candidate.evidence])].slice(-6);
      break;
    }
    if (sameTarget(toList(front.applies_to), candidate.applies_to ?? [])) {
      supersede = { name: hit.name, file: hit.file };
      break;
    }
  }
  const result = await rememberIn(
    { mind, recall: deps.recall },
    {
      content: candidate.content,
      type: candidate.type,
      name: replaceName ?? candidate.name,
      description: candidate.description,
      tags: ['captured'],
      ...(candidate.applies_to?.length ? { applies_to: candidate.applies_to } : {}),
      ...(replaceName ? { replace: true } : {}),
      ...(candidate.type === 'user' ? { scope: 'global' as const } : {}),
      extra: {
        source: 'capture',
        session: deps.session,
        evidence,
        ...(deps.review ? { status: 'proposed' } : {}),
      },
    },
  );
  if (supersede) await markSuperseded(mind.home, supersede.file, result.name);
  return {
    name: result.name,
    type: result.type,
    file: result.file,
    action: replaceName ? 'updated' : supersede ? 'superseded' : 'added',
    ...(supersede ? { supersedes: supersede.name } : {}),
    status: deps.review ? 'proposed' : 'accepted',
    evidence,
  };
}

/** Sets `superseded_by` on a memory file, under the memory lock. */
export async function markSuperseded(home: string, file: string, by: string): Promise<void> {
  const paths = homePaths(home);
  await withFileLock(paths.memory, async () => {
    const path = join(paths.memory, file);
    const text = readTextIfExists(path);
    if (text === undefined) return;
    const { data, body } = parseFrontmatter(text);
    await writeFileAtomically(path, renderFrontmatter({ ...data, superseded_by: by }, body));
    touchIndex(home);
  });
}

function frontOf(path: string): Record<string, unknown> | null {
  const text = readTextIfExists(path);
  if (text === undefined) return null;
  try {
    return parseFrontmatter(text).data;
  } catch {
    return null;
  }
}

const toList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];

/** Both caution the same calls (or neither cautions any). */
function sameTarget(a: string[], b: string[]): boolean {
  if (a.length === 0 && b.length === 0) return true;
  return a.some((x) => b.includes(x));
}
