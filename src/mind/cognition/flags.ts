import { argValuesOf, callGlob } from '../../core/index.js';
import {
  inScope,
  type MemoryEntry,
  type MemoryScope,
  type MemorySnapshot,
  type RecallHit,
} from '../memory/index.js';

/** A memory the agent should weigh before acting. */
export interface CautionaryFlag {
  name: string;
  type: string;
  /** `applies_to` (a glob matched the tool name) or `ranked` (it ranks highly for the call). */
  reason: 'applies_to' | 'ranked';
  /** The glob that matched, for `applies_to`. */
  pattern?: string;
  description: string;
  file: string;
}

/** Memory types that carry advice about how to act. */
export const CAUTIONARY_TYPES: ReadonlySet<string> = new Set(['feedback', 'caution']);
const MAX_FLAGS = 5;

interface Rule {
  entry: MemoryEntry;
  globs: { glob: string; test: (tool: string, args: readonly string[]) => boolean }[];
}

const rulesBySnapshot = new WeakMap<MemorySnapshot, Rule[]>();

/** The compiled `applies_to` rules of a snapshot; built once per snapshot version. */
function rulesOf(snapshot: MemorySnapshot): Rule[] {
  const hit = rulesBySnapshot.get(snapshot);
  if (hit) return hit;
  const rules: Rule[] = [];
  for (const entry of snapshot.entries) {
    if (!CAUTIONARY_TYPES.has(entry.type) || entry.appliesTo.length === 0) continue;
    const globs: Rule['globs'] = [];
    for (const glob of entry.appliesTo) {
      try {
        globs.push({ glob, test: callGlob(glob) });
      } catch {
        // A bad glob in a hand-written file matches nothing; remember() refuses to write one.
      }
    }
    if (globs.length > 0) rules.push({ entry, globs });
  }
  rulesBySnapshot.set(snapshot, rules);
  return rules;
}

/**
 * Cautionary flags for a call: feedback/caution memories whose `applies_to` globs match the
 * tool name first, then feedback/caution memories among the top recall hits that matched at
 * least two of the call's terms.
 */
export function cautionaryFlags(input: {
  snapshot: MemorySnapshot;
  toolName?: string;
  /** The call's arguments, for `Name(argGlob)` patterns. */
  args?: unknown;
  hits: RecallHit[];
  queryTermCount: number;
  /** Whose `applies_to` memories apply: the mind's project's and the global ones (default: all). */
  scope?: MemoryScope;
}): CautionaryFlag[] {
  const flags: CautionaryFlag[] = [];
  const seen = new Set<string>();
  if (input.toolName) {
    const argValues = argValuesOf(input.args);
    for (const rule of rulesOf(input.snapshot)) {
      if (input.scope !== undefined && !inScope(rule.entry, input.scope)) continue;
      const matched = rule.globs.find((g) => g.test(input.toolName!, argValues));
      if (!matched) continue;
      seen.add(rule.entry.file);
      flags.push({
        name: rule.entry.name,
        type: rule.entry.type,
        reason: 'applies_to',
        pattern: matched.glob,
        description: rule.entry.description,
        file: rule.entry.file,
      });
    }
  }
  for (const hit of input.hits.slice(0, 3)) {
    if (!CAUTIONARY_TYPES.has(hit.type) || seen.has(hit.file)) continue;
    if (Math.round(hit.match * input.queryTermCount) < 2) continue;
    seen.add(hit.file);
    flags.push({
      name: hit.name,
      type: hit.type,
      reason: 'ranked',
      description: input.snapshot.entries.find((e) => e.file === hit.file)?.description ?? hit.excerpt,
      file: hit.file,
    });
  }
  return flags.slice(0, MAX_FLAGS);
}
