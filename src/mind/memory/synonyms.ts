import { contentTerms } from '../../core/index.js';

/**
 * Query expansion for recall: groups of words people use interchangeably about software work.
 * A query term in a group also searches the group's other members at EXPANSION_WEIGHT, so
 * "ship" finds "deploy" and "toggle" finds "feature flag" while exact words still rank first.
 * General vocabulary only; nothing here names a project, a person or a fixture answer.
 */
const GROUPS: readonly string[] = [
  'deploy ship release rollout',
  'pr pull-request merge-request',
  'credential secret password token apikey',
  'flag toggle feature-flag',
  'test spec suite',
  'bug defect issue regression',
  'error failure exception crash',
  'delete remove drop',
  'database db postgres sql',
  'meeting sync standup',
  'outage incident downtime',
  'customer client user',
  'config configuration settings',
  'ci pipeline build',
  'page alert escalate oncall',
  'cache caching ttl',
  'doc docs documentation readme',
  'auth authentication login sign-in',
  'schema migration',
  'repo repository monorepo',
  'prefer like want',
  'approve approval sign-off',
  'slow latency performance',
  'cost price budget',
  'queue topic stream',
  'vacation holiday leave closed',
];

export const EXPANSION_WEIGHT = 0.5;

/** Term (stemmed) -> the other terms of its groups (stemmed). */
const EXPANSIONS = new Map<string, Set<string>>();
for (const group of GROUPS) {
  const members = group.split(' ').map((w) => contentTerms(w.replace(/-/g, ' ')).join(' '));
  for (const m of members) {
    const set = EXPANSIONS.get(m) ?? new Set<string>();
    for (const other of members) if (other !== m) set.add(other);
    EXPANSIONS.set(m, set);
  }
}

/** The extra query text for `terms` (already analysed), or '' when nothing expands. */
export function expansionsOf(terms: Iterable<string>): string {
  const have = new Set(terms);
  const extra = new Set<string>();
  for (const t of have) for (const e of EXPANSIONS.get(t) ?? []) if (!have.has(e)) extra.add(e);
  return [...extra].join(' ');
}
