import { contentTerms } from '../../core/index.js';

/**
 * Query expansion for recall: groups of words people use interchangeably about software work.
 * A query term in a group also searches the group's other members at EXPANSION_WEIGHT, so
 * "ship" finds "deploy" and "toggle" finds "feature flag" while exact words still rank first.
 * General vocabulary only; nothing here names a project, a person or a fixture answer.
 */
export const SYNONYM_GROUPS: readonly string[] = [
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

/**
 * The groups' members, analysed as a query is (stemmed; a hyphenated member is two words), each
 * when first needed: a query expands by the few members that share a first letter with one of
 * its terms (stemming keeps a word's first letter) and by the groups those are in, so a one-shot
 * recall stems those, not the whole table.
 */
const MEMBERS = SYNONYM_GROUPS.map((group) => group.split(' '));
const analysed = new Map<string, string>();
function analyse(member: string): string {
  let terms = analysed.get(member);
  if (terms === undefined) {
    terms = contentTerms(member.replace(/-/g, ' ')).join(' ');
    analysed.set(member, terms);
  }
  return terms;
}

/** The extra query text for `terms` (already analysed), or '' when nothing expands. */
export function expansionsOf(terms: Iterable<string>): string {
  const have = new Set(terms);
  const extra = new Set<string>();
  for (const t of have) {
    for (const members of MEMBERS) {
      if (!members.some((m) => m.charAt(0) === t.charAt(0) && analyse(m) === t)) continue;
      for (const m of members) {
        const other = analyse(m);
        if (other !== t && !have.has(other)) extra.add(other);
      }
    }
  }
  return [...extra].join(' ');
}
