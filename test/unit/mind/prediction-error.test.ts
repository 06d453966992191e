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
