import { describe, expect, it } from 'vitest';
import { predictionError } from '../../../src/mind/cognition/index.js';

const contradicting: [string, string][] = [
  ['all tests pass', 'Tests: 3 failed, 39 passed'],
  ['the file exists and contains the config', 'cat: config.yaml: No such file or directory'],
  ['returns 3 results', 'returned 0 results'],
  ['the build succeeds', 'error TS2322: Type string is not assignable to type number. Build failed.'],
  ['prints the version string', 'bash: firstlight: command not found'],
  ['the branch is merged', 'merge rejected: conflict in src/index.ts'],
  ['no errors', 'Found 2 errors in 1 file'],
  ['the server responds with 200', 'HTTP 503 Service Unavailable'],
  ['deploy completes without errors', 'deploy aborted: health check failed on 2 of 3 pods'],
];

const matching: [string, string][] = [
  ['all tests pass', 'Tests: 42 passed, 0 failed'],
  ['deployment finishes successfully', 'Deploy complete: 3 services updated in 42s'],
  ['no errors', 'Build finished with no errors'],
  ['the server responds with 200', 'HTTP/1.1 200 OK'],
  ['the file exists', 'config.yaml exists (2 KB)'],
  ['the query returns 3 users', 'returned 3 users: ann, bo, cy'],
  ['the tests pass', 'ok'],
  ['push is rejected because main is protected', 'remote: error: push to main rejected: branch is protected'],
];

describe('predictionError', () => {
  it('is null without an expectation or a result', () => {
    expect(predictionError(undefined, 'x')).toBeNull();
    expect(predictionError('  ', 'x')).toBeNull();
    expect(predictionError('x', undefined)).toBeNull();
  });

  it.each(contradicting)('scores a contradicting result above 0.7: %s / %s', (expected, result) => {
    expect(predictionError(expected, result)!.value).toBeGreaterThan(0.7);
  });

  it.each(matching)('scores a matching result below 0.3: %s / %s', (expected, result) => {
    expect(predictionError(expected, result)!.value).toBeLessThan(0.3);
  });

  it('keeps mere word divergence below the 0.7 stop line', () => {
    const pe = predictionError('lists the files in src', 'index.ts\nutil.ts')!;
    expect(pe.value).toBeGreaterThan(0.3);
    expect(pe.value).toBeLessThanOrEqual(0.6);
    expect(pe.components.polarity).toBe(0);
  });

  it('reports its components', () => {
    const pe = predictionError('returns 3 results', 'returned 0 results')!;
    expect(pe.components.numbers).toBe(1);
    expect(pe.measure).toMatch(/lexical-polarity-numeric/);
  });
});

/**
 * The graded measure: expectation, result, and the range the error must fall in. Near-equal
 * quantities are small errors, far ones and flipped outcomes large, negations read as such,
 * unrelated text sits at the lexical ceiling (0.6), empty results depend on what was predicted.
 */
const graded: [category: string, expected: string, result: string, min: number, max: number][] = [
  ['near-equal', 'about 100 tests pass', '98 tests passed', 0, 0.1],
  ['near-equal', 'the log has 1000 lines', '1012 lines', 0, 0.25],
  ['near-equal', 'responds in 120 ms', 'response time 125 ms', 0, 0.25],
  ['near-equal', 'builds 40 packages', 'built 38 packages', 0, 0.25],
  ['near-equal', 'uses about 2.5 GB of memory', 'peak memory 2.4 GB', 0, 0.25],
  ['far quantity', 'builds 40 packages', 'built 12 packages', 0.7, 1],
  ['far quantity', 'takes 2 seconds', 'took 45 seconds', 0.7, 1],
  ['far quantity', 'returns 3 results', 'returned 0 results', 0.9, 1],
  ['moderate quantity', 'about 100 rows', '80 rows', 0.3, 0.5],
  ['flipped outcome', 'all tests pass', 'Tests: 3 failed, 39 passed', 0.75, 1],
  ['flipped outcome', 'the deploy succeeds', 'deploy failed: timeout', 0.75, 1],
  ['flipped outcome', 'the file is missing', 'config.yaml found (2 KB)', 0.75, 1],
  ['flipped with near numbers', '98 tests pass', '98 tests failed', 0.75, 1],
  ['negation', 'no errors', 'Build finished with no errors', 0, 0.3],
  ['negation', 'no errors', 'Found 2 errors in 1 file', 0.75, 1],
  ['negation', 'the file is not found', 'cat: x.txt: No such file or directory', 0, 0.45],
  ['negation', '0 failures', '0 failed, 12 passed', 0, 0.3],
  [
    'unrelated text',
    'lists the three config files',
    'Updated 4 dependencies in package-lock.json',
    0.4,
    0.61,
  ],
  ['unrelated text', 'the migration adds a column', 'weather today: sunny', 0.5, 0.61],
  ['empty result', 'prints nothing', '', 0, 0.05],
  ['empty result', 'no output on success', '   ', 0, 0.05],
  ['empty result', 'lists 3 files', '', 0.75, 0.85],
  ['empty result', 'prints the version string', '', 0.55, 0.65],
  ['empty result', 'it works', '', 0.1, 0.3],
];

describe('predictionError, graded (a table of expectation/result pairs and their ranges)', () => {
  it('holds at least 20 pairs across every category', () => {
    expect(graded.length).toBeGreaterThanOrEqual(20);
    expect(new Set(graded.map((g) => g[0].split(' ')[0]))).toEqual(
      new Set(['near-equal', 'far', 'moderate', 'flipped', 'negation', 'unrelated', 'empty']),
    );
  });

  it.each(graded)('%s: %j / %j in [%f, %f]', (_category, expected, result, min, max) => {
    const value = predictionError(expected, result)!.value;
    expect(value).toBeGreaterThanOrEqual(min);
    expect(value).toBeLessThanOrEqual(max);
  });

  it('grades numbers by relative difference: 10% off is a fifth of a miss, half off or more a whole one', () => {
    expect(predictionError('100 files', '90 files')!.components.numbers).toBeCloseTo(0.2, 2);
    expect(predictionError('100 files', '50 files')!.components.numbers).toBe(1);
    expect(predictionError('100 files', '100 files')!.components.numbers).toBe(0);
  });
});
