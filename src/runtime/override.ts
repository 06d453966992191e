import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UserError } from '../core/index.js';
import { MODES, type Mode } from './policy.js';

/**
 * The operator override: an explicit, per-session collapse of mode boundaries with a specific
 * reason and acknowledged risks. Validated here; the pipeline journals it at start and end,
 * unions the tool sets of the collapsed modes only, and tags what the session produces.
 */

export interface Override {
  readonly type: 'operator_collapsed_modes';
  readonly modes_collapsed: readonly Mode[];
  readonly reason: string;
  readonly acknowledged_risks: readonly string[];
}

/** Reasons too vague to audit later. */
const VAGUE = /^(urgent|hurry|in a hurry|asap|now|because|needed|no time|quick(ly)?|fast)[.!]*$/i;

/** Problems with an override declaration (empty when valid). */
export function overrideProblems(value: unknown, sessionMode: Mode | null): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return ['the override is not a mapping'];
  const o = value as Record<string, unknown>;
  const problems: string[] = [];
  if (o.type !== 'operator_collapsed_modes') problems.push('type must be "operator_collapsed_modes"');
  const modes = o.modes_collapsed;
  if (!Array.isArray(modes) || modes.length < 2) {
    problems.push('modes_collapsed must list at least two modes');
  } else {
    const bad = modes.filter((m) => !(MODES as readonly unknown[]).includes(m));
    if (bad.length > 0)
      problems.push(`modes_collapsed has unknown modes: ${bad.join(', ')} (modes: ${MODES.join(', ')})`);
    if (new Set(modes).size !== modes.length) problems.push('modes_collapsed repeats a mode');
    if (sessionMode && !modes.includes(sessionMode)) {
      problems.push(`modes_collapsed does not include this session's mode (${sessionMode})`);
    }
  }
  const reason = typeof o.reason === 'string' ? o.reason.trim() : '';
  if (reason.split(/\s+/).filter(Boolean).length < 4 || VAGUE.test(reason.replace(/^(we are |i am )/i, ''))) {
    problems.push(
      'reason must be specific enough to audit later (at least four words: what is urgent and why)',
    );
  }
  const risks = o.acknowledged_risks;
  if (
    !Array.isArray(risks) ||
    risks.length === 0 ||
    risks.some((r) => typeof r !== 'string' || r.trim() === '')
  ) {
    problems.push('acknowledged_risks must name at least one corruption being accepted');
  }
  const known = new Set(['type', 'modes_collapsed', 'reason', 'acknowledged_risks']);
  for (const key of Object.keys(o)) if (!known.has(key)) problems.push(`unknown field "${key}"`);
  return problems;
}

/** Reads an override file (YAML or JSON); unreadable is bad usage, invalid content is checked later. */
export function readOverrideFile(file: string): unknown {
  try {
    return parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(`cannot read override file ${file}: ${(error as Error).message.split('\n')[0]}`, {
      code: 'OVERRIDE_UNREADABLE',
      hint: 'pass --override a YAML or JSON file: {type: operator_collapsed_modes, modes_collapsed, reason, acknowledged_risks}',
    });
  }
}
