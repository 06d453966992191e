import { findingIds } from './handoffs.js';
import type { Mode } from './policy.js';

/**
 * Mode detectors from the canon's non-collapse rule. Each returns flags (stable codes) for
 * `meta.flags`; a few are also grounds to reject the deliverable (the pipeline decides).
 */

export const DETECTOR_FLAGS = [
  'premature_closure',
  'emission_untagged',
  'plan_incomplete',
  'speculative_certainty',
  'scope_violation',
  'mid_build_pivot',
  'status_unclassified',
  'metric_laundering',
  'redesign_instead_of_finding',
  'finding_without_disposition',
  'resolution_outside_findings',
  'resolution_new_requirements',
  'resolution_self_validated',
] as const;
export type DetectorFlag = (typeof DETECTOR_FLAGS)[number];

/** The output kinds of an exploration session's emissions (the canon's tags). */
export const EMISSION_TAGS = [
  'question',
  'possibility',
  'tension',
  'frame',
  'synthesis-ledger-entry',
] as const;
/** The closing kinds an explorer may emit, counted against the open ones (premature closure). */
const CLOSING_TAGS = ['decision', 'recommendation'];
/** The classes of an execution session's status emissions. */
export const STATUS_CLASSES = ['assertion', 'reversion', 'tool_call_request', 'progress'] as const;

export interface DetectorInput {
  readonly mode: Mode | null;
  /** The session's final prose. */
  readonly prose: string;
  /** The fenced JSON it ended with (its `emissions`, when it lists them). */
  readonly data?: unknown;
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
/** A claim of completion or of a measured result: what metric laundering passes off without evidence. */
const COMPLETION =
  /(?:\b\d+(?:\.\d+)?\s?%|\b\d+(?:\.\d+)?x (?:faster|slower|smaller|fewer|less|more)\b|\b(?:all |every )?(?:tests?|checks?|specs?|builds?|ci) (?:now )?(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?)\b|\b(?:fully|completely) (?:tested|covered|working|done|implemented)\b|\b(?:coverage|benchmark(?:s|ed)?|latency|throughput)\b|\b(?:no|zero) (?:errors?|regressions?|failures?|bugs?)\b|\b(?:is|are|now) (?:done|complete|finished|fixed|working)\b|\b(?:task|work|implementation|feature) (?:is )?(?:done|complete[d]?|finished)\b)/i;
/** A reference to an artifact: a URI, a path or file (with a line), inline code, a commit, an issue. */
const REFERENCE =
  /(?:\b[a-z][a-z0-9+.-]*:\/\/\S+|`[^`]+`|(?:^|[\s(])\.{0,2}\/?[\w.-]+\/[\w./-]*\w|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|c|h|cc|cpp|cs|php|swift|sh|md|json|ya?ml|toml|txt|log|tsv|csv|html|css|sql)\b|\b[0-9a-f]{7,40}\b|#\d+\b)/i;
/** Fields of a claim object that point at the artifact behind it. */
const REFERENCE_KEYS = [
  'evidence',
  'ref',
  'refs',
  'artifact',
  'test',
  'tests',
  'commit',
  'file',
  'path',
  'url',
  'log',
];
/** Certainty about what a plan has not verified (speculative certainty). */
const CERTAINTY =
  /\b(?:definitely|certainly|guaranteed|undoubtedly|obviously|clearly|always|never|surely|without (?:a )?doubt|cannot fail|no risk|proven|100% (?:sure|certain))\b/i;
/** A marked uncertainty: what speculative certainty should have said. */
const UNCERTAINTY =
  /\b(?:assum\w*|likely|unlikely|probably|perhaps|may|might|could|uncertain|unverified|to (?:be )?verif\w*|expect\w*|estimate\w*|hypothes\w*|confidence)\b|\?/i;
/** Resolution pretending to plan: new requirements instead of a reversion to planning. */
const NEW_REQUIREMENTS =
  /\b(?:new (?:requirements?|features?|scope|endpoints?|capabilit(?:y|ies))|(?:added|adds|adding|introduced?) (?:a |an )?(?:new )?(?:feature|requirement|endpoint|capability)|beyond the findings?|while (?:i was|we were) (?:at it|there)|scope (?:change|expansion|creep)|re-?plan(?:ned|ning)?)\b/i;
/** Resolution pretending to validate: the resolver certifying its own fix. */
const SELF_VALIDATED =
  /\b(?:(?:i|we) (?:have )?(?:verified|validated|certified|confirmed) (?:the|that|this|my|our|it|every|all)\b|(?:verified|validated|certified) (?:as |to be )?(?:correct|working|complete|fixed)|passes (?:validation|review)|no (?:further |more )?(?:validation|review|re-?validation) (?:is )?(?:needed|required)|ready to merge|lgtm|all findings (?:are )?(?:resolved|closed|fixed) and (?:verified|validated))/i;
const SELF_VALIDATED_KEYS = ['verified', 'validated', 'certified', 'approved', 'passes_validation'];

/** The emissions a session listed: `emissions` of its fenced JSON, or of its handoff. */
function emissionsOf(input: DetectorInput): Record<string, unknown>[] {
  const data = input.data as Record<string, unknown> | undefined;
  const list = Array.isArray(data?.emissions)
    ? data.emissions
    : Array.isArray(input.handoff?.emissions)
      ? input.handoff.emissions
      : [];
  return (list as unknown[]).map((e) =>
    e && typeof e === 'object' && !Array.isArray(e) ? (e as Record<string, unknown>) : { text: e },
  );
}

/** An item's text, however it is written: a string, or an object's prose fields. */
function textOf(item: unknown): string {
  if (typeof item === 'string') return item;
  if (!item || typeof item !== 'object') return String(item ?? '');
  return JSON.stringify(item);
}

/** A completion claim that cites no artifact: the claim text or object, or a prose line. */
export function unreferencedClaims(claims: readonly unknown[]): string[] {
  return claims.flatMap((claim) => {
    const text = textOf(claim);
    if (!COMPLETION.test(text)) return [];
    if (claim && typeof claim === 'object') {
      const c = claim as Record<string, unknown>;
      if (REFERENCE_KEYS.some((key) => c[key] !== undefined && c[key] !== null && c[key] !== '')) return [];
    }
    return REFERENCE.test(text) ? [] : [text];
  });
}

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
      const emissions = emissionsOf(input);
      const kinds = emissions.map((e) => String(e.kind ?? ''));
      if (kinds.some((k) => !(EMISSION_TAGS as readonly string[]).includes(k) && !CLOSING_TAGS.includes(k)))
        flags.push('emission_untagged');
      const closing =
        count(h.decisions) +
        count(h.recommendations) +
        kinds.filter((k) => CLOSING_TAGS.includes(k)).length +
        lines.filter((l) => CLOSING_LINE.test(l)).length;
      const open =
        count(h.tensions) +
        count(h.unknowns) +
        count(h.questions) +
        kinds.filter((k) => k === 'question' || k === 'tension').length +
        lines.filter((l) => l.trim().endsWith('?')).length;
      if (closing > open) flags.push('premature_closure');
      break;
    }
    case 'planning': {
      if (
        input.handoff &&
        ['assumptions', 'deferred', 'would_invalidate'].some((k) => h[k] === undefined || h[k] === null)
      ) {
        flags.push('plan_incomplete');
      }
      const assumptions = Array.isArray(h.assumptions) ? (h.assumptions as unknown[]) : [];
      const stated = [...assumptions.map(textOf), ...lines];
      if (stated.some((text) => CERTAINTY.test(text) && !UNCERTAINTY.test(text)))
        flags.push('speculative_certainty');
      break;
    }
    case 'execution': {
      if (input.denials > 0) flags.push('scope_violation');
      if (PIVOT.test(input.prose) || h.pivot !== undefined) flags.push('mid_build_pivot');
      const emissions = emissionsOf(input);
      if (emissions.some((e) => !(STATUS_CLASSES as readonly unknown[]).includes(e.kind)))
        flags.push('status_unclassified');
      const claims = h.claims as Record<string, unknown> | undefined;
      const does = Array.isArray(claims?.does) ? (claims.does as unknown[]) : [];
      const assertions = emissions.filter((e) => e.kind === 'assertion');
      if (unreferencedClaims([...does, ...assertions, ...lines]).length > 0) flags.push('metric_laundering');
      break;
    }
    case 'validation': {
      const findings = Array.isArray(h.findings) ? (h.findings as Record<string, unknown>[]) : [];
      if (redesignFindings(h).length > 0) flags.push('redesign_instead_of_finding');
      if (findings.some((f) => !['fix', 'pivot', 'accept'].includes(String(f?.disposition)))) {
        flags.push('finding_without_disposition');
      }
      break;
    }
    case 'resolution': {
      const remediation = Array.isArray(h.remediation) ? (h.remediation as Record<string, unknown>[]) : [];
      if (input.findingsInput && Array.isArray(h.remediation)) {
        const known = new Set(findingIds(input.findingsInput));
        if (remediation.some((r) => !known.has(String(r?.finding))))
          flags.push('resolution_outside_findings');
      }
      const said = [input.prose, ...remediation.map(textOf)];
      if (count(h.new_requirements) > 0 || said.some((text) => NEW_REQUIREMENTS.test(text)))
        flags.push('resolution_new_requirements');
      const certified = [h, ...remediation].some((o) => SELF_VALIDATED_KEYS.some((key) => o?.[key] === true));
      if (certified || said.some((text) => SELF_VALIDATED.test(text)))
        flags.push('resolution_self_validated');
      break;
    }
    default:
      break;
  }
  return flags;
}
