import { describe, expect, it } from 'vitest';
import { missingFields } from '../../../src/runtime/index.js';

describe('handoff minimal content', () => {
  it('a synthesis needs possibilities, tensions, unknowns and frames', () => {
    expect(missingFields('synthesis', { possibilities: [], tensions: [] })).toEqual(['unknowns', 'frames']);
  });

  it('a plan needs assumptions, scope in and out, deferred and would_invalidate', () => {
    expect(missingFields('plan', { assumptions: ['a'], scope: { in: ['x'] }, deferred: [] })).toEqual([
      'scope.out',
      'would_invalidate',
    ]);
  });

  it('an artifact needs the artifact and claims (does, does not, scope)', () => {
    expect(
      missingFields('artifact', { artifact: 'src/x.ts', claims: { does: ['y'], scope: 'plan p' } }),
    ).toEqual(['claims.does_not']);
  });

  it('findings need a disposition (fix, pivot, accept) and evidence on each', () => {
    expect(
      missingFields('findings', {
        findings: [
          { id: 'f1', disposition: 'fix', evidence: 'line 3' },
          { id: 'f2', disposition: 'maybe', evidence: '' },
        ],
      }),
    ).toEqual(['findings.1.disposition', 'findings.1.evidence']);
  });

  it('a revision needs the artifact and a remediation per finding', () => {
    expect(
      missingFields('revision', { artifact: 'x', remediation: [{ finding: 'f1' }, { changed: 'y' }] }),
    ).toEqual(['remediation.0.changed', 'remediation.1.finding']);
    expect(
      missingFields('revision', { artifact: 'x', remediation: [{ finding: 'f1', not_changed: 'accepted' }] }),
    ).toEqual([]);
  });
});
