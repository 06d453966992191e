import { describe, expect, it } from 'vitest';
import { matchToolGlob, toolGlob } from '../../../src/core/index.js';

describe('toolGlob', () => {
  it('matches any case, * across / and dots, ? one character, braces and classes', () => {
    expect(toolGlob('Bash')('bash')).toBe(true);
    expect(toolGlob('Bash')('Bash2')).toBe(false);
    expect(toolGlob('mcp__*__send*')('mcp__a/b__send_mail')).toBe(true);
    expect(toolGlob('*')('.hidden')).toBe(true);
    expect(toolGlob('B?sh')('Bush')).toBe(true);
    expect(toolGlob('{deploy,ship}_*')('SHIP_it')).toBe(true);
    expect(toolGlob('git_[pP]ush*')('git_push_tags')).toBe(true);
    expect(toolGlob('a.b')('aXb')).toBe(false);
  });

  it('reads a leading ! literally', () => {
    expect(toolGlob('!Bash')('Read')).toBe(false);
    expect(toolGlob('!Bash')('!bash')).toBe(true);
  });
});

describe('matchToolGlob', () => {
  it('returns the first glob that matches, and skips one that does not compile', () => {
    expect(matchToolGlob('git_push', ['', 'Read', 'git_*', 'git_push'])).toBe('git_*');
    expect(matchToolGlob('Read', ['Bash'])).toBeNull();
  });
});
