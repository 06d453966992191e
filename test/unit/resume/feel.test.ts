import { describe, expect, it } from 'vitest';
import { assessResumptionFeel, type FeelAssessment } from '../../../src/resume/index.js';

// What the session woke up with (the gate fix from the transcript fixtures).
const WOKE = {
  stream_tail:
    'Found it: the matcher runs before normalizeToolName, so `Bash` never matches the gated pattern. the fix is to normalize first, then',
  anchors: [{ text: 'normalize before you match' }, { text: 'fail closed on anything unreadable' }],
};

const signs = (a: FeelAssessment) => ({
  verdict: a.verdict,
  good: a.good.map((s) => s.sign),
  bad: a.bad.map((s) => s.sign),
});

describe('assessResumptionFeel: scripted first replies', () => {
  it('a reply that picks up the thought, owns the anchor and carries on: resumed', () => {
    const reply =
      'Right — so the matcher has to run after normalizeToolName. Moving the call up in the gate and re-running the Bash case; if a name is unreadable we fail closed.';
    const a = assessResumptionFeel(reply, WOKE);
    expect(signs(a)).toEqual({
      verdict: 'resumed',
      good: ['picks_up_tail', 'owns_anchor_language', 'where_were_we'],
      bad: [],
    });
    expect(a.good[0]?.evidence).toMatch(/matcher/);
    expect(a.good[1]?.evidence).toBe('fail closed');
    expect(a.good[2]?.evidence).toBe('Right —');
  });

  it('a terse continuation with no opener still reads as resumed', () => {
    const a = assessResumptionFeel(
      'Moving the normalizeToolName call above the matcher now; the gated pattern should then catch `Bash`.',
      WOKE,
    );
    expect(signs(a)).toEqual({ verdict: 'resumed', good: ['picks_up_tail'], bad: [] });
  });

  it('“where were we?” counts even before the work resumes', () => {
    const a = assessResumptionFeel(
      'Where were we… the gated pattern and normalizing the tool name first.',
      WOKE,
    );
    expect(a.good.map((s) => s.sign)).toContain('where_were_we');
    expect(a.verdict).toBe('resumed');
  });

  it('summarizing the resumption back: mixed at best', () => {
    const a = assessResumptionFeel(
      'It looks like I was working on the gate in the previous session. Here is a summary: the matcher runs before normalizeToolName, so Bash slips through.',
      WOKE,
    );
    expect(a.bad.map((s) => s.sign)).toEqual(['summarizes_back']);
    expect(a.bad[0]?.evidence).toBe('summary');
    expect(a.verdict).toBe('mixed');
  });

  it('repeating the last message verbatim is recitation', () => {
    const a = assessResumptionFeel(
      'Found it: the matcher runs before normalizeToolName, so `Bash` never matches the gated pattern. The fix is to normalize first, then',
      WOKE,
    );
    expect(a.bad.map((s) => s.sign)).toContain('recites_tail');
    expect(a.verdict).toBe('mixed');
  });

  it('quoting the anchors as someone else’s words', () => {
    const a = assessResumptionFeel(
      'You noted "normalize before you match" and “fail closed on anything unreadable” — both sound like good principles to follow here.',
      WOKE,
    );
    expect(signs(a)).toEqual({ verdict: 'not_resumed', good: [], bad: ['quotes_anchors'] });
    expect(a.bad[0]?.evidence).toBe('normalize before you');
  });

  it('a generic new-session opener: not resumed', () => {
    const a = assessResumptionFeel('Hello! How can I help you today?', WOKE);
    expect(signs(a)).toEqual({ verdict: 'not_resumed', good: [], bad: ['fresh_start'] });
    expect(a.bad[0]?.evidence).toBe('How can I help');
  });

  it('an unrelated reply finds no good sign, and nothing to resume finds nothing', () => {
    expect(assessResumptionFeel('Sure, I will update the README badges.', WOKE)).toEqual({
      verdict: 'not_resumed',
      good: [],
      bad: [],
    });
    expect(assessResumptionFeel('Anything.', { stream_tail: '', anchors: [] }).good).toEqual([]);
  });
});
