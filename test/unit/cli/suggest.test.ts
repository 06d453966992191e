import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../src/cli/suggest.js';

describe('near-miss suggestions', () => {
  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('reacll', 'recall')).toBe(1);
    expect(editDistance('Recall', 'recall')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('finds a name by one of its words, then by edit distance, best first', () => {
    const names = ['Squash merges only', 'feedback_squash_merges', 'Deploy freeze', 'Alex Rivera'];
    expect(closest('squash', names)).toEqual(['Squash merges only', 'feedback_squash_merges']);
    expect(closest('deploy', names)).toEqual(['Deploy freeze']);
    expect(closest('reacll', ['recall', 'remember', 'repl'])).toEqual(['recall']);
    expect(closest('zzz', names)).toEqual([]);
    expect(closest('recall', ['recall'])).toEqual([]);
  });

  it('says it as a question', () => {
    expect(didYouMean(['recall'])).toBe('(did you mean recall?)');
    expect(didYouMean(['a', 'b', 'c'])).toBe('(did you mean a, b or c?)');
    expect(didYouMean([])).toBe('');
  });
});
