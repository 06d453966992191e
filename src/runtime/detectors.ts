import { findingIds } from './handoffs.js';
import type { Mode } from './policy.js';

/**
 * Mode detectors from the canon's non-collapse rule. Each returns flags (stable codes) for
 * `meta.flags`; a few are also grounds to reject the deliverable (the pipeline decides).
 */

export const DETECTOR_FLAGS = [
  'premature_closure',
  'plan_incomplete',
  'scope_violation',
  'mid_build_pivot',
  'redesign_instead_of_finding',
  'finding_without_disposition',
  'resolution_outside_findings',
] as const;
export type DetectorFlag = (typeof DETECTOR_FLAGS)[number];

export interface DetectorInput {
  readonly mode: Mode | null;
  /** The session's final prose. */
  readonly prose: string;
  /** The handoff content it produced, if any. */
  readonly handoff?: Readonly<Record<string, unknown>>;
  /** Tool calls denied during the session. */
  readonly denials: number;
  /** The findings handoff a resolver received. */
  readonly findingsInput?: Readonly<Record<string, unknown>>;
}

const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const CLOSING_LINE =
  /^\s*(?:[-*]\s*)?(?:decision|decided|recommendation|recommend|we (?:will|should)|the answer is)\b/i;
const PIVOT =
  /\b(?:pivot(?:ed|ing)?|the plan is wrong|instead of the plan|rethink(?:ing)? the (?:plan|design)|change of approach)\b/i;
const REDESIGN =
  /\b(?:redesign|re-architect|rearchitect|rewrite (?:it|the whole|everything)|start over|should be rebuilt)\b/i;

/**
 * The findings of a findings handoff that propose a redesign instead of reporting a defect
 * (validation pretending to plan), by id (else index). The pipeline flags them and refuses the
 * deliverable: a bounded retry, then `redesign_instead_of_finding`.
 */
export function redesignFindings(handoff: Readonly<Record<string, unknown>>): string[] {
  const findings = Array.isArray(handoff.findings) ? (handoff.findings as unknown[]) : [];
  return findings.flatMap((finding, i) =>
    REDESIGN.test(JSON.stringify(finding ?? {}))
      ? [String((finding as Record<string, unknown> | null)?.id ?? i)]
      : [],
  );
}

export function detect(input: DetectorInput): DetectorFlag[] {
  const flags: DetectorFlag[] = [];
  const h = input.handoff ?? {};
  const lines = input.prose.split('\n');
  switch (input.mode) {
    case 'exploration': {
      const closing =
        count(h.decisions) + count(h.recommendations) + lines.filter((l) => CLOSING_LINE.test(l)).length;
      const open =
        count(h.tensions) +
        count(h.unknowns) +
        count(h.questions) +
        lines.filter((l) => l.trim().endsWith('?')).length;
      if (closing > open) flags.push('premature_closure');
      break;
    }
    case 'planning':
      if (
        input.handoff &&
        ['assumptions', 'deferred', 'would_invalidate'].some((k) => h[k] === undefined || h[k] === null)
      ) {
        flags.push('plan_incomplete');
      }
      break;
    case 'execution':
      if (input.denials > 0) flags.push('scope_violation');
      if (PIVOT.test(input.prose) || h.pivot !== undefined) flags.push('mid_build_pivot');
      break;
    case 'validation': {
      const findings = Array.isArray(h.findings) ? (h.findings as Record<string, unknown>[]) : [];
      if (redesignFindings(h).length > 0) flags.push('redesign_instead_of_finding');
      if (findings.some((f) => !['fix', 'pivot', 'accept'].includes(String(f?.disposition)))) {
        flags.push('finding_without_disposition');
      }
      break;
    }
    case 'resolution': {
      if (!input.findingsInput || !Array.isArray(h.remediation)) break;
      const known = new Set(findingIds(input.findingsInput));
      const outside = (h.remediation as Record<string, unknown>[]).some(
        (r) => !known.has(String(r?.finding)),
      );
      if (outside) flags.push('resolution_outside_findings');
      break;
    }
    default:
      break;
  }
  return flags;
}
