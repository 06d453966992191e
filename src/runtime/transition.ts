import { missingFields } from './handoffs.js';
import { HANDOFF_FIELDS, type HandoffKind } from './policy.js';

/**
 * What a transition's journal row records of its handoff, as the canon's encoded-handoff
 * constraint asks of every transition: the obligations of the prior mode it met, what it
 * defers, and what it carries forward to the next session. Pure: read from the handoff.
 */

export interface TransitionSummary {
  /** The transition's minimal fields the handoff holds (all of them unless an override let it through short). */
  readonly met: readonly string[];
  /** Minimal fields it lacks (only under an override, which waives completeness). */
  readonly missing: readonly string[];
  /** What it says is not done now. */
  readonly deferred: readonly string[];
  /** What the next session must pick up. */
  readonly carried_forward: readonly string[];
}

/** One item as a journal value: a string as written, an object by its id (or its text), at most 160 chars. */
function itemOf(item: unknown): string {
  let text: string;
  if (typeof item === 'string') text = item;
  else if (item && typeof item === 'object' && !Array.isArray(item)) {
    const o = item as Record<string, unknown>;
    const id = o.id ?? o.finding;
    const words = o.summary ?? o.text ?? o.title ?? o.what ?? o.concern;
    text =
      id !== undefined && words !== undefined
        ? `${String(id)}: ${String(words)}`
        : String(id ?? words ?? JSON.stringify(o));
  } else text = JSON.stringify(item ?? null);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

const list = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];

export function summarizeTransition(
  kind: HandoffKind,
  content: Readonly<Record<string, unknown>>,
): TransitionSummary {
  const missing = missingFields(kind, content);
  const met = HANDOFF_FIELDS[kind].filter(
    (field) => !missing.some((m) => m === field || m.startsWith(`${field}.`)),
  );
  const deferred: unknown[] = [];
  const carried: unknown[] = [...list(content.carried_forward)];
  switch (kind) {
    case 'synthesis':
      // What exploration leaves open is what planning must take up.
      carried.push(...list(content.tensions), ...list(content.unknowns));
      break;
    case 'plan':
      carried.push(...list(content.would_invalidate).map((c) => `would invalidate: ${itemOf(c)}`));
      break;
    case 'artifact': {
      const claims = (content.claims ?? {}) as Record<string, unknown>;
      deferred.push(...list(claims.does_not).map((c) => `does not: ${itemOf(c)}`));
      break;
    }
    case 'findings':
      for (const finding of list(content.findings)) {
        const f = (finding ?? {}) as Record<string, unknown>;
        if (f.disposition === 'accept') deferred.push(`${itemOf(f.id ?? finding)} (accepted as is)`);
        else if (f.disposition === 'fix' || f.disposition === 'pivot')
          carried.push(`${itemOf(f.id ?? finding)} (${String(f.disposition)})`);
      }
      break;
    case 'revision':
      for (const item of list(content.remediation)) {
        const r = (item ?? {}) as Record<string, unknown>;
        if (r.not_changed !== undefined && r.not_changed !== null && r.not_changed !== '')
          deferred.push(`${itemOf(r.finding)} not changed: ${itemOf(r.not_changed)}`);
        // What changed is what the fresh validator after it re-validates.
        if (r.changed !== undefined && r.changed !== null && r.changed !== '')
          carried.push(`${itemOf(r.finding)} changed, to re-validate`);
      }
      break;
  }
  deferred.unshift(...list(content.deferred));
  return {
    met,
    missing,
    deferred: deferred.map(itemOf),
    carried_forward: carried.map(itemOf),
  };
}
