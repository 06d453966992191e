// Where `remember` draws the line for "similar memories": pairs of realistic memories, each a
// rewrite of the other (the same fact said again: a duplicate) or merely related (same topic,
// another fact), remembered into one home; for each second memory, the similarity recall's
// similar() gives its first. Prints both distributions, and how many of each a floor lists.
// The floor in recall-index.ts (SIMILAR_FLOOR) is chosen from this: listing is advice, so it
// should list nearly every rewrite and may list some related memories. `--smoke` (or BENCH_SMOKE=1): fewer pairs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHome } from '../dist/core/index.js';
import { createMind, openRecallIndex, rememberIn, SIMILAR_FLOOR } from '../dist/mind/index.js';
import { printTable, SMOKE, writeResult } from './lib.mjs';

/** [first, second, duplicate?] */
const PAIRS = [
  [
    'We deploy with blue-green on Fridays only after 10am; rollback is a DNS switch.',
    'Deploys are blue-green, Fridays after 10am only, and rolling back means switching DNS back.',
    true,
  ],
  [
    'Alex prefers pull requests under 300 lines and reviews them within a day.',
    'Alex wants PRs kept under 300 lines; he reviews within a day.',
    true,
  ],
  [
    'The billing service retries failed charges three times with exponential backoff.',
    'Failed charges in billing are retried 3 times, backing off exponentially.',
    true,
  ],
  [
    'Run the focused failing test before the whole suite: the suite takes 12 minutes.',
    'Always run the one failing test first; the full suite needs 12 minutes.',
    true,
  ],
  [
    'Cache TTL is 60 seconds since the pricing incident in October.',
    'Since the October pricing incident the cache TTL has been 60 seconds.',
    true,
  ],
  [
    'Never rebase-merge shared branches; the team squashes.',
    'The team squash-merges; rebase-merging a shared branch is not allowed.',
    true,
  ],
  [
    'Sam owns the deploy pipeline and the on-call rota.',
    'The on-call rota and the deploy pipeline belong to Sam.',
    true,
  ],
  [
    'Staging database credentials live in the team vault under infra/staging.',
    'Credentials for the staging database are in the vault at infra/staging.',
    true,
  ],
  [
    'The mobile app ships through store review every other Monday.',
    'Every second Monday the mobile app goes through app store review.',
    true,
  ],
  [
    'Use pnpm, not npm, in the web repo: the lockfile is pnpm-lock.yaml.',
    'The web repo uses pnpm (pnpm-lock.yaml), never npm.',
    true,
  ],
  [
    'We deploy with blue-green on Fridays only after 10am; rollback is a DNS switch.',
    'Database migrations run before the deploy, in a separate pipeline step.',
    false,
  ],
  [
    'Alex prefers pull requests under 300 lines and reviews them within a day.',
    'Alex leads the portal team and joined in March.',
    false,
  ],
  [
    'The billing service retries failed charges three times with exponential backoff.',
    'The billing service sends invoices at the end of each month.',
    false,
  ],
  [
    'Run the focused failing test before the whole suite: the suite takes 12 minutes.',
    'The test suite runs in CI on every push to main.',
    false,
  ],
  [
    'Cache TTL is 60 seconds since the pricing incident in October.',
    'The pricing incident in October was caused by a stale price list.',
    false,
  ],
  [
    'Never rebase-merge shared branches; the team squashes.',
    'Branch names start with the ticket number, e.g. PORT-123-fix-login.',
    false,
  ],
  [
    'Sam owns the deploy pipeline and the on-call rota.',
    'The on-call rota changes every Wednesday at noon.',
    false,
  ],
  [
    'Staging database credentials live in the team vault under infra/staging.',
    'The staging database is reset every Sunday night.',
    false,
  ],
  [
    'The mobile app ships through store review every other Monday.',
    'The mobile app crashes on Android 12 when the camera permission is denied.',
    false,
  ],
  [
    'Use pnpm, not npm, in the web repo: the lockfile is pnpm-lock.yaml.',
    'The web repo builds with Vite and deploys to the CDN.',
    false,
  ],
];

const pairs = SMOKE ? [...PAIRS.slice(0, 3), ...PAIRS.slice(10, 13)] : PAIRS;
const scores = { duplicate: [], related: [] };
for (const [first, second, duplicate] of pairs) {
  const home = mkdtempSync(join(tmpdir(), 'firstlight-bench-similar-'));
  try {
    createHome(home, { name: 'Bench', user: '', style: '' });
    const mind = createMind({ home });
    const index = openRecallIndex(mind);
    const deps = { mind, recall: () => index };
    // A few unrelated memories around them, as in a real home.
    for (const text of [
      'The office is closed on public holidays.',
      'Lunch orders go in by 11.',
      'The VPN needs the new client since May.',
    ])
      await rememberIn(deps, { type: 'note', content: text });
    await rememberIn(deps, { type: 'note', content: first });
    const all = index.similar(second, { floor: 0 });
    const firstFile = all.find((s) => s.name.startsWith(first.split(' ').slice(0, 2).join(' ')));
    const top = all[0]?.score ?? 0;
    (duplicate ? scores.duplicate : scores.related).push(firstFile?.score ?? top);
    index.close();
    mind.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const floors = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
const rows = floors.map((floor) => ({
  floor,
  'rewrites listed': `${scores.duplicate.filter((s) => s >= floor).length}/${scores.duplicate.length}`,
  'related listed': `${scores.related.filter((s) => s >= floor).length}/${scores.related.length}`,
  chosen: floor === SIMILAR_FLOOR ? '<-' : '',
}));
const fmt = (xs) =>
  xs
    .map((x) => x.toFixed(2))
    .sort()
    .join(' ');
console.log(`rewrites: ${fmt(scores.duplicate)}\nrelated:  ${fmt(scores.related)}`);
printTable('similar memories: what a floor lists', rows);
writeResult('similar', { floor: SIMILAR_FLOOR, scores, rows });
