import { contentTerms } from '../../core/index.js';

/**
 * Query expansion for recall: groups of words people use interchangeably about software work,
 * with the common abbreviations (PR, CI, DB, env, repo, k8s, …). A query term in a group also
 * searches the group's other members at EXPANSION_WEIGHT, so "ship" finds "deploy", "toggle"
 * finds "feature flag" and "pull request" finds "PR", while exact words still rank first. A
 * hyphenated member is a phrase: it matches where its words stand together in the query.
 * General vocabulary only; nothing here names a project, a person or a fixture answer. A member
 * whose stem is a common word of its own is left out (authorization stems to "author",
 * localization to "local", out-of-office to "offic").
 */
export const SYNONYM_GROUPS: readonly string[] = [
  'deploy ship release rollout',
  'pr pull-request merge-request mr',
  'credential creds secret password token apikey',
  'flag toggle feature-flag',
  'test spec suite',
  'bug defect issue regression',
  'error failure exception crash',
  'delete remove drop',
  'database db postgres sql',
  'meeting sync standup',
  'outage incident downtime',
  'customer client user',
  'config configuration settings cfg conf',
  'ci continuous-integration pipeline build',
  'page alert escalate oncall',
  'cache caching ttl',
  'doc docs documentation readme',
  'auth authentication login sign-in',
  'sso single-sign-on',
  'mfa 2fa two-factor',
  'schema migration',
  'repo repository monorepo',
  'env environment',
  'prod production',
  'dev development',
  'k8s kubernetes kube',
  'infra infrastructure',
  'deps dependency',
  'e2e end-to-end',
  'i18n internationalization',
  'impl implementation',
  'dir directory folder',
  'arg argument',
  'param parameter',
  'msg message',
  'js javascript',
  'ts typescript',
  'py python',
  'gh github',
  'tf terraform',
  'vm virtual-machine',
  'qa quality-assurance',
  'wip work-in-progress',
  'prefer like want',
  'approve approval sign-off lgtm',
  'slow latency performance perf',
  'cost price budget',
  'queue topic stream',
  'vacation holiday leave closed pto ooo',
];

export const EXPANSION_WEIGHT = 0.5;

/**
 * The groups' members, analysed as a query is (stemmed; a hyphenated member is its words), each
 * when first needed: a query expands by the few members whose first word shares a first letter
 * with one of its terms (stemming keeps a word's first letter) and by the groups those are in,
 * so a one-shot recall stems those, not the whole table.
 */
const MEMBERS = SYNONYM_GROUPS.map((group) => group.split(' '));
const analysed = new Map<string, readonly string[]>();
function analyse(member: string): readonly string[] {
  let terms = analysed.get(member);
  if (terms === undefined) {
    terms = contentTerms(member.replace(/-/g, ' '));
    analysed.set(member, terms);
  }
  return terms;
}

/** Whether `phrase` stands in `terms` from position `at` on. */
function standsAt(terms: readonly string[], at: number, phrase: readonly string[]): boolean {
  if (phrase.length === 0 || at + phrase.length > terms.length) return false;
  return phrase.every((p, i) => terms[at + i] === p);
}

/**
 * The extra query text for `terms` (already analysed, in the query's order), or '' when nothing
 * expands: the other members of every group one of whose members the query holds, less what the
 * query already has.
 */
export function expansionsOf(terms: readonly string[]): string {
  const have = new Set(terms);
  const extra = new Set<string>();
  const expand = (members: readonly string[], found: string) => {
    for (const m of members) {
      const other = analyse(m);
      const text = other.join(' ');
      if (text !== found && !other.every((t) => have.has(t))) extra.add(text);
    }
  };
  for (let at = 0; at < terms.length; at++) {
    const t = terms[at]!;
    for (const members of MEMBERS) {
      for (const m of members) {
        if (m.charAt(0) !== t.charAt(0)) continue;
        const phrase = analyse(m);
        if (standsAt(terms, at, phrase)) expand(members, phrase.join(' '));
      }
    }
  }
  return [...extra].join(' ');
}
